import type { AlertCondition, AlertRule, CounterSnapshot } from './schemas';
import type { AlertReads } from './ports';

/** What a condition reads now: whether it holds (undefined: not enough data yet), in words, and the counters. */
export interface Reading {
  firing?: boolean;
  text: string;
  snapshot?: CounterSnapshot;
}

const MINUTE = 60_000;
const pct = (n: number) => `${Math.round(n * 10) / 10}%`;

/** The newest snapshot taken at or before `at`; undefined when every snapshot is younger. */
const snapshotAt = (snapshots: CounterSnapshot[], at: number) => [...snapshots].reverse().find((s) => Date.parse(s.at) <= at);

/**
 * Reads a rule's condition at `now`. Windowed conditions compare the destination's counters now with those read
 * a window ago (the rule keeps a reading a minute): attempts are deliveries, aborts and newly parked events.
 */
export async function readCondition(rule: AlertRule, reads: AlertReads, now: number): Promise<Reading> {
  const condition: AlertCondition = rule.condition;
  if (condition.kind === 'source-silent') {
    const since = now - condition.minutes * MINUTE;
    if (Date.parse(rule.createdAt) > since) return { text: `watching for ${condition.minutes} minutes first` };
    const stored = await reads.sourceStoredSince(rule.workspaceId, condition.sourceId, since);
    return {
      firing: !stored,
      text: stored ? `events received in the last ${condition.minutes} minutes` : `no event received for ${condition.minutes} minutes`,
    };
  }
  const counters = await reads.destinationCounters(rule.workspaceId, condition.destinationId);
  const snapshot: CounterSnapshot = { at: new Date(now).toISOString(), ...counters };
  if (condition.kind === 'destination-backlog' && condition.measure === 'retrying') {
    return { firing: counters.retrying > condition.above, text: `${counters.retrying} events waiting for a retry (threshold ${condition.above})`, snapshot };
  }
  const minutes = condition.minutes ?? 60;
  const before = snapshotAt(rule.snapshots, now - minutes * MINUTE + 5000);
  if (!before) return { text: `reading the first ${minutes} minutes`, snapshot };
  const delivered = counters.delivered - before.delivered;
  const aborted = counters.aborted - before.aborted;
  const parked = Math.max(0, counters.retrying - before.retrying);
  if (condition.kind === 'destination-backlog') {
    return { firing: aborted > condition.above, text: `${aborted} events aborted in ${minutes} minutes (threshold ${condition.above})`, snapshot };
  }
  if (condition.kind === 'destination-down') {
    const down = delivered === 0 && counters.retrying > 0;
    return {
      firing: down,
      text: down ? `nothing delivered in ${minutes} minutes, ${counters.retrying} events waiting` : `${delivered} delivered in ${minutes} minutes`,
      snapshot,
    };
  }
  const attempts = delivered + aborted + parked;
  // Too few attempts to judge: the state stays as it is (a quiet destination has not recovered, nor failed).
  if (attempts < condition.minAttempts) return { text: `${attempts} attempts in ${minutes} minutes (fewer than ${condition.minAttempts} to judge)`, snapshot };
  const rate = (100 * delivered) / attempts;
  return {
    firing: rate < condition.belowPercent,
    text: `success rate ${pct(rate)} of ${attempts} attempts in ${minutes} minutes (threshold ${condition.belowPercent}%)`,
    snapshot,
  };
}

/** The readings a rule keeps: those its window may still need, and the new one. */
export function keptSnapshots(rule: AlertRule, snapshot: CounterSnapshot | undefined, now: number): CounterSnapshot[] {
  if (!snapshot) return [];
  const minutes = 'minutes' in rule.condition ? (rule.condition.minutes ?? 60) : 60;
  const oldest = now - (minutes + 1) * MINUTE;
  const kept = rule.snapshots.filter((s) => Date.parse(s.at) >= oldest);
  // The oldest one before the window is what the window compares with: keep it.
  const previous = rule.snapshots.filter((s) => Date.parse(s.at) < oldest).at(-1);
  return [...(previous ? [previous] : []), ...kept, snapshot];
}
