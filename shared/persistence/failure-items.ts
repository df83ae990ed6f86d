import { gunzipSync, gzipSync } from 'node:zlib';
import type { BatchChange, RetryOutcome } from '../domain/delivery/ports';
import { parseSeq } from '../domain/delivery/batch-run';
import type { BatchRef, ParkedDelivery } from '../domain/delivery/records';
import { FailedEvent } from '../domain/delivery/failures';
import { addError, addFunnel, addLatency, emptyFunnel, funnelClassOf, hourOf, ingestedAt, type FunnelAdd } from '../domain/delivery/funnel';
import { withDestinationSlot } from '../domain/delivery/series-slots';
import { destinationFunnelUpdate, destinationHourUpdate } from './funnel-counters';
import { keys } from './keys';
import type { TransactItem } from './table-client';

/** How long failed events are kept: `WEIR_FAILURE_RETENTION_DAYS` (default 7), enforced by the table's TTL. */
const FAILURE_RETENTION_ENV = 'WEIR_FAILURE_RETENTION_DAYS';
export const failureRetentionSeconds = (): number => {
  const days = Number(process.env[FAILURE_RETENTION_ENV] ?? 7);
  return Math.round((Number.isFinite(days) && days > 0 ? days : 7) * 24 * 3600);
};

/** A group's gzipped failures stay well under the 400 KB item limit. */
const MAX_GROUP_BYTES = 300 * 1024;
/** At most this many groups go in one write (a transaction holds 100 items and 4 MB); beyond, details are left out. */
const MAX_GROUPS_PER_WRITE = 5;

const gz = (failures: FailedEvent[]) => gzipSync(JSON.stringify(failures));

/** Failures in groups that each fit an item, halved until they do; an event too large alone keeps its ids and answer only. */
function pack(failures: FailedEvent[]): FailedEvent[][] {
  if (failures.length === 0) return [];
  if (gz(failures).length <= MAX_GROUP_BYTES) return [failures];
  if (failures.length === 1) return [[{ ...failures[0]!, event: { truncated: 'left out: too large to keep' }, requests: [], message: undefined }]];
  const half = Math.ceil(failures.length / 2);
  return [...pack(failures.slice(0, half)), ...pack(failures.slice(half))];
}

/** The groups of one write's failures, as transaction Puts (written once with the state change that aborted them). */
function failureGroupPuts(table: string, ref: Omit<BatchRef, 'part'> & { part: number | string }, failures: FailedEvent[]): TransactItem[] {
  let groups = pack(failures);
  if (groups.length > MAX_GROUPS_PER_WRITE) {
    groups = pack(failures.map((f) => ({ ...f, event: { truncated: 'left out: too many failures in one write' }, requests: [], message: undefined })));
  }
  const expiresAt = Math.floor(Date.now() / 1000) + failureRetentionSeconds();
  return groups.map((group, k) => {
    const first = group[0]!;
    const sk = `${first.receivedAt}#${ref.requestId}#${ref.part}#${first.abortedAt}#${k}`;
    return {
      Put: {
        TableName: table,
        Item: {
          ...keys.deliveryFailures(ref.workspaceId, ref.destinationId, sk),
          entity: 'deliveryFailures',
          workspaceId: ref.workspaceId,
          destinationId: ref.destinationId,
          sourceId: ref.sourceId,
          reasons: [...new Set(group.map((f) => f.reason))],
          users: [...new Set(group.flatMap((f) => [f.userId, f.anonymousId].filter((u): u is string => u !== undefined)))].slice(0, 100),
          count: group.length,
          abortedAt: first.abortedAt,
          payload: gz(group),
          retries: {},
          expiresAt,
        },
      },
    };
  });
}

/** A group's failures, as the domain reads them. */
export const unpackFailures = (payload: Uint8Array): (FailedEvent | null)[] =>
  (JSON.parse(gunzipSync(payload).toString('utf8')) as unknown[]).map((f) => (f === null ? null : FailedEvent.parse(f)));

/**
 * What a batch's write adds beside its own item: the hour's funnel (the parks it makes, and at the finish the
 * batch's whole funnel) and the groups of the failures it records.
 */
export function batchExtras(table: string, ref: BatchRef, change: BatchChange, parks: number): TransactItem[] {
  const funnel: FunnelAdd = change.finish && change.funnel ? { ...change.funnel, counts: { ...change.funnel.counts } } : emptyFunnel();
  if (parks > 0) funnel.counts.retrying = (funnel.counts.retrying ?? 0) + parks;
  const window = destinationFunnelUpdate(table, ref.workspaceId, ref.destinationId, ingestedAt(ref.requestId), funnel);
  return [...(window ? [window] : []), ...failureGroupPuts(table, ref, change.failures ?? [])];
}

/**
 * What batches finished together (each parking nothing and keeping no failures) add beside their items: each
 * hour's funnel once, summed over them (each batch's counts in its own 5-minute slot).
 */
export function finishedTogetherExtras(table: string, finished: { ref: BatchRef; change: BatchChange }[]): TransactItem[] {
  const hours = new Map<string, FunnelAdd>();
  for (const { ref, change } of finished) {
    const at = ingestedAt(ref.requestId);
    if (change.funnel) hours.set(hourOf(at), addFunnel(hours.get(hourOf(at)) ?? emptyFunnel(), withDestinationSlot(change.funnel, at)));
  }
  const { workspaceId, destinationId } = finished[0]!.ref;
  return [...hours].flatMap(([hour, funnel]) => destinationHourUpdate(table, workspaceId, destinationId, hour, funnel) ?? []);
}

/** What parks written ahead of their batch's write add to its hour: `retrying`. */
export const parkExtras = (table: string, ref: BatchRef, parks: number): TransactItem[] =>
  batchExtras(
    table,
    ref,
    { position: { progress: 0, output: 0 }, totals: { delivered: 0, filtered: 0, aborted: 0 }, trail: '', leaseUntil: '', parks: [] },
    parks,
  );

/**
 * What a parked delivery's final attempt adds beside its end: its hour's funnel moves it from `retrying` to
 * delivered (with its latency) or to its abort's class, and an abort leaves its failure.
 */
export function retryEndExtras(table: string, claimed: ParkedDelivery, outcome: RetryOutcome): TransactItem[] {
  const seq = parseSeq(claimed.seq);
  const received = ingestedAt(seq.requestId);
  const funnel = emptyFunnel();
  funnel.counts.retrying = -1;
  if (outcome.status === 'delivered') {
    funnel.counts.delivered = 1;
    addLatency(funnel, Date.now() - received);
  } else {
    const reason = outcome.reason ?? 'http4xx';
    funnel.counts[funnelClassOf(reason)] = 1;
    addError(funnel, { class: reason, ...(outcome.lastStatus && { status: outcome.lastStatus }), error: outcome.lastError ?? claimed.lastError });
  }
  const window = destinationFunnelUpdate(table, claimed.workspaceId, claimed.destinationId, received, funnel);
  const items: TransactItem[] = window ? [window] : [];
  if (outcome.status === 'aborted' && outcome.failure) {
    const ref = { workspaceId: claimed.workspaceId, destinationId: claimed.destinationId, sourceId: claimed.sourceId };
    items.push(...failureGroupPuts(table, { ...ref, requestId: seq.requestId, part: `${seq.part}#${seq.index}#${seq.output}` }, [outcome.failure]));
  }
  return items;
}
