import type * as z from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { ConflictError, NotFoundError, RateLimitedError, ServiceUnavailableError, ValidationError } from '../errors';
import { newId, now } from '../ids';
import type { AlertMail, AlertRepository, MailLimits } from './ports';
import { viewOf, type AlertChannel, type AlertCondition, type AlertRule, type AlertRuleCreate, type AlertRulePatch, type StoredAlertChannel } from './schemas';

/**
 * Subscribing an address makes AWS mail it a confirmation: a workspace may subscribe at most 10 new addresses
 * in a clock hour, and an address it subscribed is not subscribed again (no second mail) for a day.
 */
export const ALERT_MAIL_LIMITS: MailLimits = { perHour: 10, addressSeconds: 24 * 3600 };

type Create = z.output<typeof AlertRuleCreate>;
type Patch = z.output<typeof AlertRulePatch>;

/** Alert rules as the API manages them, and the notifications they sent. */
export class AlertService {
  constructor(
    private readonly rules: AlertRepository,
    private readonly catalog: Pick<CatalogRepository, 'getSource' | 'getDestination'>,
    private readonly mail: AlertMail,
    private readonly mailLimits: MailLimits = ALERT_MAIL_LIMITS,
  ) {}

  async create(workspaceId: string, input: Create) {
    await this.checkTargets(workspaceId, input.condition);
    const channel = await this.channelOf(workspaceId, input.channel);
    const at = now();
    const rule: AlertRule = { id: newId(), workspaceId, ...input, channel, createdAt: at, updatedAt: at, state: 'ok', snapshots: [], version: 0 };
    await this.rules.create(rule);
    return viewOf(rule);
  }

  async list(workspaceId: string) {
    return { rules: (await this.rules.list(workspaceId)).map(viewOf) };
  }

  async get(workspaceId: string, id: string) {
    return viewOf(await this.find(workspaceId, id));
  }

  /** A changed condition starts over: state ok, its readings gone (a firing rule's recovery is not announced). */
  async update(workspaceId: string, id: string, patch: Patch) {
    const rule = await this.find(workspaceId, id);
    if (patch.condition) await this.checkTargets(workspaceId, patch.condition);
    const fresh = patch.condition ? { state: 'ok' as const, snapshots: [], reading: undefined, since: undefined } : {};
    const { channel, ...rest } = patch;
    const changes = { ...rest, ...(channel && { channel: await this.channelOf(workspaceId, channel) }), ...fresh, updatedAt: now() };
    const updated = await this.rules.replace(rule, changes);
    if (!updated) throw new ConflictError(`alert rule ${id} changed meanwhile; read it again`);
    return viewOf(updated);
  }

  async delete(workspaceId: string, id: string): Promise<void> {
    if (!(await this.rules.delete(workspaceId, id))) throw NotFoundError.of('alert rule', id);
  }

  async notifications(workspaceId: string) {
    return { notifications: await this.rules.notifications(workspaceId, 100) };
  }

  private async find(workspaceId: string, id: string): Promise<AlertRule> {
    const rule = await this.rules.get(workspaceId, id);
    if (!rule) throw NotFoundError.of('alert rule', id);
    return rule;
  }

  /**
   * An e-mail channel subscribes its address to the workspace's SNS topic before the rule is written (AWS mails
   * the address a link to confirm); the rule keeps SNS's answer. An address the workspace subscribed within the
   * day is not subscribed again (the rule keeps the answer of then); a new address past the workspace's hourly
   * limit is refused (429). Without SNS in the deployment, or when SNS fails, nothing is written.
   */
  private async channelOf(workspaceId: string, channel: AlertChannel): Promise<StoredAlertChannel> {
    if (channel.type !== 'email') return channel;
    if (!this.mail.enabled()) {
      throw new ValidationError("channel.type: e-mail alerts need the deployment's Amazon SNS, which this deployment does not have; use slack or webhook");
    }
    const claim = await this.rules.claimMailAddress(workspaceId, channel.address, this.mailLimits, Date.now());
    if (claim.kind === 'subscribed') return { ...channel, subscription: claim.subscription };
    if (claim.kind === 'limited') {
      throw new RateLimitedError(
        `channel.address: this workspace may subscribe at most ${this.mailLimits.perHour} new e-mail addresses an hour to alerts (each is mailed a confirmation); retry after ${claim.retryAfterSeconds} s`,
        claim.retryAfterSeconds,
      );
    }
    const answer = await this.mail.subscribe(workspaceId, channel.address);
    if ('error' in answer) {
      await this.rules.releaseMailAddress(workspaceId, channel.address);
      throw new ServiceUnavailableError(`channel.address: SNS could not subscribe ${channel.address}: ${answer.error}`);
    }
    await this.rules.recordMailSubscription(workspaceId, channel.address, answer.subscription);
    return { ...channel, subscription: answer.subscription };
  }

  private async checkTargets(workspaceId: string, condition: AlertCondition): Promise<void> {
    if ('sourceId' in condition && !(await this.catalog.getSource(workspaceId, condition.sourceId))) {
      throw new ValidationError(`condition.sourceId: no source ${condition.sourceId} in this workspace`);
    }
    if ('destinationId' in condition && !(await this.catalog.getDestination(workspaceId, condition.destinationId))) {
      throw new ValidationError(`condition.destinationId: no destination ${condition.destinationId} in this workspace`);
    }
  }
}
