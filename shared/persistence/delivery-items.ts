import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import type { BatchChange } from '../domain/delivery/ports';
import {
  ParkedDelivery,
  ruleCounterName,
  type BatchCounts,
  type BatchGuard,
  type BatchRef,
  type BatchState,
  type OutcomeCounts,
  type OutcomeError,
} from '../domain/delivery/records';
import type { FunnelAdd } from '../domain/delivery/funnel';
import { counterShard, errorShard } from './counters';
import { keys } from './keys';
import type { TransactItem } from './table-client';

/** Delivery records live as long as the events they deliver. */
export const DELIVERY_TTL_SECONDS = 7 * 24 * 3600;

/** The gsi1 entry that makes an item due at `at` for the scheduler (B: a batch, H: a held run, R: a retry). */
export const attention = (at: string, kind: 'B' | 'H' | 'R', id: string, itemSk: string) => ({
  gsi1pk: keys.deliveryAttention(itemSk),
  gsi1sk: `${at}#${kind}#${id}`,
});

/** A user as a key part: readable where short and plain, a hash otherwise ('#' separates key parts). */
export function userKeyPart(userKey: string): string {
  return userKey.length <= 128 && !userKey.includes('#') ? userKey : `h:${createHash('sha256').update(userKey).digest('hex')}`;
}

/** The key of a parked delivery: ordered under its user in the user's retry partition. */
export const parkedKey = (parked: Pick<ParkedDelivery, 'workspaceId' | 'destinationId' | 'userKey' | 'seq'>) =>
  keys.deliveryRetry(parked.workspaceId, parked.destinationId, userKeyPart(parked.userKey), parked.seq);

export const retryId = (parked: ParkedDelivery) => `${parked.workspaceId}#${parked.destinationId}#${parkedKey(parked).sk}`;

/** The item of a parked delivery. Requests and messages are JSON text: events may nest deeper than a map may. */
export function parkedItem(parked: ParkedDelivery): Record<string, unknown> {
  return {
    ...parkedKey(parked),
    entity: 'deliveryRetry',
    ...parked,
    requests: JSON.stringify(parked.requests),
    message: parked.message && JSON.stringify(parked.message),
    ...(parked.status === 'waiting' && parked.dueAt && attention(parked.dueAt, 'R', retryId(parked), parkedKey(parked).sk)),
  };
}

const fromText = (value: unknown) => {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
};

export function parseParked(item: Record<string, unknown>): ParkedDelivery {
  return ParkedDelivery.parse({ ...item, requests: fromText(item.requests) ?? [], message: fromText(item.message) ?? undefined });
}

/**
 * An addition to a destination's counters, as a transaction item, so that it is written with the state change
 * it counts (and so exactly once); its errors, the latest ten in time order, replace those of the shard it takes
 * (counters.ts errorShard).
 */
export function statsItem(
  table: string,
  workspaceId: string,
  destinationId: string,
  counts: OutcomeCounts | Record<string, number>,
  errors: OutcomeError[],
  at: string,
): TransactItem {
  const values: Record<string, unknown> = { ':at': at };
  const names: Record<string, string> = {};
  const add = Object.entries(counts)
    .filter(([, n]) => n)
    .map(([name, n], i) => {
      values[`:c${i}`] = n;
      names[`#c${i}`] = name;
      return `#c${i} :c${i}`;
    });
  const set = ['updatedAt = :at'];
  if (errors.length > 0) {
    set.push('lastErrors = :errors');
    values[':errors'] = errors
      .slice()
      .sort((a, b) => a.at.localeCompare(b.at))
      .slice(-10);
  }
  return {
    Update: {
      TableName: table,
      Key: keys.destinationStats(workspaceId, destinationId, errors.length > 0 ? errorShard() : counterShard()),
      UpdateExpression: `SET ${set.join(', ')}${add.length > 0 ? ` ADD ${add.join(', ')}` : ''}`,
      ExpressionAttributeValues: values,
      ...(add.length > 0 && { ExpressionAttributeNames: names }),
    },
  };
}

export const ttl = () => Math.floor(Date.now() / 1000) + DELIVERY_TTL_SECONDS;

/** The values of what every write of a batch sets: what it is, its ref, when it began and when it goes. */
const describing = (ref: BatchRef) => ({
  ':ws': ref.workspaceId,
  ':source': ref.sourceId,
  ':destination': ref.destinationId,
  ':request': ref.requestId,
  ':part': ref.part,
  ':entity': 'deliveryBatch',
  ':now': new Date().toISOString(),
  ':ttl': ttl(),
});

/** Whether a write renews the owner's lease: the first write does, then any once half the lease is gone. */
export function renews(guard: BatchGuard, leaseUntil: string): boolean {
  if (!guard.established || !guard.leaseUntil) return true;
  const left = Date.parse(guard.leaseUntil) - Date.now();
  return left < (Date.parse(leaseUntil) - Date.now()) / 2;
}
/** A finished batch's totals as its destination counts them: filtered events per rule under their source and label. */
export function outcomeCounts(sourceId: string, totals: BatchCounts): Record<string, number> {
  const { byRule, ...counts } = totals;
  const rules = Object.entries(byRule ?? {}).map(([label, n]) => [ruleCounterName(sourceId, label), n] as const);
  return { ...counts, ...Object.fromEntries(rules) };
}

/**
 * The condition of a write by the guard's owner: the batch is theirs; before their first write went through,
 * it is as they read it (absent, or another's lease that ran out).
 */
export function ownership(guard: BatchGuard) {
  const mine = '(#owner = :owner AND #status IN (:sending, :finishing))';
  const values: Record<string, unknown> = { ':owner': guard.owner, ':sending': 'sending', ':finishing': 'finishing' };
  let condition = mine;
  if (!guard.established) {
    if (guard.prior.kind === 'absent') condition = `attribute_not_exists(pk) OR ${mine}`;
    else if (guard.prior.kind === 'sending') {
      condition = `(#owner = :prevOwner AND leaseUntil = :prevLease) OR ${mine}`;
      Object.assign(values, { ':prevOwner': guard.prior.owner, ':prevLease': guard.prior.leaseUntil });
    }
  }
  return { ConditionExpression: condition, ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status' }, ExpressionAttributeValues: values };
}

/** One addition to a destination's counters for batches of one source finished together: their totals summed, their errors. */
export function finishedTogetherStats(table: string, finished: { ref: BatchRef; change: BatchChange }[]): TransactItem {
  const counts: Record<string, number> = {};
  for (const { ref, change } of finished)
    for (const [name, n] of Object.entries(outcomeCounts(ref.sourceId, change.totals))) counts[name] = (counts[name] ?? 0) + n;
  const { workspaceId, destinationId } = finished[0]!.ref;
  const errors = finished.flatMap(({ change }) => change.finish?.errors ?? []);
  const at = finished
    .map(({ change }) => change.finish?.at ?? new Date().toISOString())
    .sort()
    .at(-1)!;
  return statsItem(table, workspaceId, destinationId, counts, errors, at);
}

/** A run as a key of its own: a stream run's id is its source's at every destination, so the destination is in it. */
export const runKey = (run: { workspaceId: string; destinationId: string; runId: string }) => `${run.workspaceId}#${run.destinationId}#${run.runId}`;

/**
 * Where a batch's item says it stands: done (with its trail), or sending from its position with its counts and
 * funnel. One written finished in a run (`finishing`) is done once the run is (`runsDone`, by `runKey`,
 * delivery-runs.ts).
 */
export function stateOf(item: Record<string, unknown>, runsDone: ReadonlySet<string> = new Set()): BatchState {
  const trail = typeof item.trail === 'string' ? { trail: item.trail } : {};
  if (item.status === 'finishing' && runsDone.has(runKey(runOf(item)))) return { kind: 'done', ...trail, ...(item.gsi1pk !== undefined && { indexed: true }) };
  if (item.status !== 'sending' && item.status !== 'finishing') return { kind: 'done', ...trail };
  const count = (name: string) => Number(item[name] ?? 0);
  return {
    kind: 'sending',
    owner: String(item.owner),
    leaseUntil: String(item.leaseUntil),
    position: { progress: count('progress'), output: count('output') },
    counts: {
      delivered: count('nDelivered'),
      filtered: count('nFiltered'),
      aborted: count('nAborted'),
      ...(typeof item.nByRule === 'object' && item.nByRule !== null && { byRule: { ...(item.nByRule as Record<string, number>) } }),
    },
    ...(typeof item.trail === 'string' && { trail: item.trail }),
    ...(item.funnel !== undefined && { funnel: item.funnel as FunnelAdd }),
    ...(item.status === 'finishing' && { runId: String(item.runId) }),
  };
}

/** The runs of the items written finished in one (`finishing`): whose records say whether they are done. */
export const runsOf = (items: Record<string, unknown>[]) => items.filter((item) => item.status === 'finishing').map(runOf);

const runOf = (item: Record<string, unknown>) => ({
  workspaceId: String(item.workspaceId),
  destinationId: String(item.destinationId),
  runId: String(item.runId),
});

/** A batch's write: its run so far; with `runId`, written finished in that run, which counts it (finishBatches). */
export function batchUpdate(table: string, guard: BatchGuard, change: BatchChange, runId?: string): TransactItem {
  const { ref } = guard;
  const condition = ownership(guard);
  const values: Record<string, unknown> = {
    // The owner's :owner and :sending, which the write sets too.
    ...condition.ExpressionAttributeValues,
    ':progress': change.position.progress,
    ':output': change.position.output,
    ':nd': change.totals.delivered,
    ':nf': change.totals.filtered,
    ':na': change.totals.aborted,
    ':trail': change.trail,
    ...(change.totals.byRule && { ':byRule': change.totals.byRule }),
    ...describing(ref),
    // A finished batch's funnel is in its hour's counters: the item keeps it only while it is resumable.
    ...(change.funnel && !change.finish && { ':funnel': change.funnel }),
  };
  const set = [
    'entity = :entity, workspaceId = :ws, sourceId = :source, destinationId = :destination, requestId = :request, #part = :part, #owner = :owner',
    'progress = :progress, #output = :output, nDelivered = :nd, nFiltered = :nf, nAborted = :na, trail = :trail',
    ...(change.totals.byRule ? ['nByRule = :byRule'] : []),
    `createdAt = if_not_exists(createdAt, :now), expiresAt = :ttl${change.funnel && !change.finish ? ', funnel = :funnel' : ''}`,
  ];
  let remove = ' REMOVE runId';
  if (change.finish && runId !== undefined) {
    // Done once its run's record is written (which keeps the samples); resumable from here (lease, funnel) until then.
    set.push('#status = :finishing, runId = :run, finishedAt = :at, leaseUntil = :lease, funnel = :funnel');
    Object.assign(values, {
      ':finishing': 'finishing',
      ':run': runId,
      ':at': change.finish.at,
      ':lease': change.leaseUntil,
      ':funnel': change.funnel ?? {},
    });
    remove = '';
  } else if (change.finish) {
    set.push('#status = :done, samples = :samples, finishedAt = :at');
    Object.assign(values, { ':done': 'done', ':samples': gzipSync(JSON.stringify(change.finish.samples)), ':at': change.finish.at });
    remove = ' REMOVE gsi1pk, gsi1sk, leaseUntil, funnel, runId';
  } else if (renews(guard, change.leaseUntil)) {
    // The lease moves only when half of it is gone. The scheduler's index entry is not written here: while
    // its submitter waits, a batch needs none (a crash hands the stream record over again; one it stopped
    // waiting for is in its held run); one released at a stop or found through the index keeps the entry it has. An item in the index costs
    // index writes on every update, so a batch delivered while its submitter waits never enters it.
    set.push('#status = :sending, leaseUntil = :lease');
    values[':lease'] = change.leaseUntil;
  }
  return {
    Update: {
      TableName: table,
      Key: keys.deliveryBatch(ref.workspaceId, ref.destinationId, ref.requestId, ref.part),
      UpdateExpression: `SET ${set.join(', ')}${remove}`,
      ConditionExpression: condition.ConditionExpression,
      ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status', '#part': 'part', '#output': 'output' },
      ExpressionAttributeValues: values,
    },
  };
}
