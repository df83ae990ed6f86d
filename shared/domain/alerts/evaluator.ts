import { newId } from '../ids';
import type { AlertReads, AlertRepository } from './ports';
import { keptSnapshots, readCondition } from './readings';
import type { AlertNotification, AlertRule, StoredAlertChannel } from './schemas';

/** A rule is evaluated once a minute, however often the round runs (locally every few seconds). */
const EVERY_MS = 55_000;

/** Sends a notification to its channel; the answer's status (and SNS's MessageId), and why it failed if it did. Never throws. */
export type Notify = (channel: StoredAlertChannel, notification: AlertNotification, rule: AlertRule) => Promise<NonNullable<AlertNotification['delivery']>>;

/**
 * Every minute, each enabled rule's condition is read from the counters and compared with its state. A change
 * of state (ok → firing, firing → ok) is recorded with its notification in one conditional write before the
 * channel is told, so two evaluators, or a crash and a rerun, never notify the same change twice: at most once
 * per change, and the notification's record says how the channel answered.
 */
export class AlertEvaluator {
  constructor(
    private readonly rules: AlertRepository,
    private readonly reads: AlertReads,
    private readonly notify: Notify,
  ) {}

  /** One round at `now`; returns the notifications sent. */
  async evaluateAll(now = Date.now()): Promise<number> {
    let sent = 0;
    for (const rule of await this.rules.all()) {
      if (!rule.enabled || (rule.evaluatedAt && Date.parse(rule.evaluatedAt) > now - EVERY_MS)) continue;
      if (await this.evaluate(rule, now)) sent++;
    }
    return sent;
  }

  private async evaluate(rule: AlertRule, now: number): Promise<boolean> {
    const reading = await readCondition(rule, this.reads, now);
    const at = new Date(now).toISOString();
    const state = reading.firing === undefined ? rule.state : reading.firing ? 'firing' : 'ok';
    const changed = state !== rule.state;
    const notification: AlertNotification | undefined = changed
      ? {
          id: newId(),
          ruleId: rule.id,
          ruleName: rule.name,
          state: state === 'firing' ? 'firing' : 'recovered',
          reading: reading.text,
          at,
          channel: rule.channel.type,
        }
      : undefined;
    const evaluation = {
      state,
      since: changed ? at : rule.since,
      reading: reading.text,
      evaluatedAt: at,
      snapshots: keptSnapshots(rule, reading.snapshot, now),
    };
    if (!(await this.rules.recordEvaluation(rule, evaluation, notification)) || !notification) return false;
    const answer = await this.notify(rule.channel, notification, rule);
    await this.rules.recordDelivery(rule.workspaceId, notification.id, answer);
    return true;
  }
}
