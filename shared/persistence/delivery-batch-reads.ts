import { gunzipSync } from 'node:zlib';
import type { BatchRecord } from '../domain/delivery/ports';
import { decodeTime, encodeTime } from 'ulid';
import { BatchRef, batchIdOf, DeliverySample, type BatchLookup, type BatchState, type HeldRun } from '../domain/delivery/records';
import { runKey, runsOf, stateOf } from './delivery-items';
import { DeliveryRuns, listedKey } from './delivery-runs';
import { HeldRuns } from './held-runs';
import { readCounters } from './counters';
import { keys } from './keys';
import { newestAcross } from './across-partitions';
import { getEach, type TableClient } from './table-client';

/**
 * Reads of a destination's delivery: where given batches stand (one key each: delivery and the audit); across
 * its batch and run partitions, the people's view of the newest, never the per-event path; its counters and
 * held runs. What the views and the audit read, without the writes (their functions' bundles stay small).
 */
export class DeliveryBatchReads {
  protected readonly runs: DeliveryRuns;
  protected readonly held: HeldRuns;

  constructor(protected readonly store: TableClient) {
    this.runs = new DeliveryRuns(store);
    this.held = new HeldRuns(store);
  }

  /** A destination's counters, summed over their shards (strongly consistent). */
  outcomes(workspaceId: string, destinationId: string): Promise<Record<string, unknown> | undefined> {
    return readCounters(this.store, keys.destinationStatsShards(workspaceId, destinationId));
  }

  /** The runs held at a destination now (the audit). */
  heldRuns(workspaceId: string, destinationId: string): Promise<HeldRun[]> {
    return this.held.atDestination(workspaceId, destinationId);
  }

  /**
   * Where each batch stands, by `batchIdOf`, strongly consistent: one round trip per hundred batches (and, for
   * batches written finished in a run, per hundred of their runs). One with no item, done if the run it names
   * (`inRun`) lists it: a round trip per hundred of those runs.
   */
  async readBatches(refs: BatchLookup[]): Promise<Map<string, BatchState>> {
    const states = new Map<string, BatchState>(refs.map((ref) => [batchIdOf(ref), { kind: 'absent' }]));
    // Each batch once: a stream batch may hand the same record over twice.
    const distinct = [...new Map(refs.map((ref) => [batchIdOf(ref), ref])).values()];
    const wanted = distinct.map((ref) => keys.deliveryBatch(ref.workspaceId, ref.destinationId, ref.requestId, ref.part));
    const items = await getEach(this.store, wanted, { ConsistentRead: true });
    const done = await this.runs.doneOf(runsOf(items));
    for (const item of items) states.set(batchIdOf(BatchRef.parse(item)), stateOf(item, done));
    const unfound = distinct.filter((ref) => ref.inRun !== undefined && states.get(batchIdOf(ref))!.kind === 'absent');
    if (unfound.length === 0) return states;
    const runOf = (ref: BatchLookup) => ({ workspaceId: ref.workspaceId, destinationId: ref.destinationId, runId: ref.inRun! });
    const listed = await this.runs.listedIn(unfound.map(runOf));
    for (const ref of unfound) {
      const batch = listed.get(runKey(runOf(ref)))?.get(listedKey(ref));
      if (batch) states.set(batchIdOf(ref), { kind: 'done', trail: batch.trail });
    }
    return states;
  }

  /**
   * The most recent batches of a destination, newest first (what was sent and answered), exactly the newest
   * `limit` across its partitions, in two rounds (newestAcross): a person's view, never the per-event path.
   */
  async recentBatches(workspaceId: string, destinationId: string, limit: number): Promise<{ finishedAt?: string; samples: DeliverySample[] }[]> {
    // Batches finished alone keep their samples; batches finished together, their run's record.
    const [batches, runs] = await Promise.all([
      newestAcross(this.store, keys.deliveryBatchPartitions(workspaceId, destinationId), limit),
      newestAcross(this.store, keys.deliveryRunPartitions(workspaceId, destinationId), limit),
    ]);
    return [...batches.filter((batch) => batch.status !== 'finishing'), ...runs.filter((run) => run.status === 'done')]
      .map((item) => ({ finishedAt: item.finishedAt as string | undefined, samples: samplesOf(item.samples) }))
      .sort((a, b) => String(b.finishedAt ?? '').localeCompare(String(a.finishedAt ?? '')))
      .slice(0, limit);
  }

  /**
   * Where the given batches of a destination stand (the audit's parts): one key each, a round trip per hundred,
   * strongly consistent, rather than a query of every partition. Samples are not read; absent ones are left out.
   */
  async batchesOf(workspaceId: string, destinationId: string, parts: { requestId: string; part: number }[]): Promise<BatchRecord[]> {
    const wanted = [...new Map(parts.map((p) => [`${p.requestId}#${p.part}`, keys.deliveryBatch(workspaceId, destinationId, p.requestId, p.part)])).values()];
    const items = await getEach(this.store, wanted, {
      ConsistentRead: true,
      ExpressionAttributeNames: { '#status': 'status', '#part': 'part', '#output': 'output' },
      ProjectionExpression: 'workspaceId, destinationId, requestId, #part, #status, progress, #output, trail, leaseUntil, gsi1pk, runId',
    });
    const done = await this.runs.doneOf(runsOf(items));
    const own: BatchRecord[] = items.map((item) => ({
      requestId: String(item.requestId),
      part: Number(item.part),
      status: stateOf(item, done).kind === 'done' ? 'done' : 'sending',
      position: { progress: Number(item.progress ?? 0), output: Number(item.output ?? 0) },
      ...(typeof item.trail === 'string' && { trail: item.trail }),
      ...(typeof item.leaseUntil === 'string' && { leaseUntil: item.leaseUntil }),
      indexed: item.gsi1pk !== undefined,
    }));
    // The others may be listed finished by a run: runs begin after their parts were stored (their ids are
    // ULIDs from then on), so those from a second before the earliest part on are read.
    const found = new Set(own.map(listedKey));
    const rest = parts.filter((p) => !found.has(listedKey(p)) && /^[0-9A-HJKMNP-TV-Z]{26}$/.test(p.requestId));
    if (rest.length === 0) return own;
    const earliest = rest.map((p) => decodeTime(p.requestId)).reduce((a, b) => Math.min(a, b));
    const listed = await this.runs.listedSince(workspaceId, destinationId, encodeTime(Math.max(0, earliest - 1000), 10));
    const inRuns = rest.flatMap((p) => {
      const batch = listed.get(listedKey(p));
      return batch ? [{ requestId: p.requestId, part: p.part, status: 'done' as const, position: batch.position, trail: batch.trail, indexed: false }] : [];
    });
    return [...own, ...inRuns];
  }
}

/**
 * Samples are kept as gzipped JSON: they hold events, which may nest deeper than the 32 levels a DynamoDB map
 * allows, and alike events compress well (a batch's item is written in a transaction, at twice the units per
 * KB). A batch not finished yet has none.
 */
function samplesOf(value: unknown): DeliverySample[] {
  if (!(value instanceof Uint8Array)) return [];
  try {
    const samples = DeliverySample.array().safeParse(JSON.parse(gunzipSync(value).toString('utf8')));
    return samples.success ? samples.data : [];
  } catch {
    return [];
  }
}
