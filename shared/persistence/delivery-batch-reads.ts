import { gunzipSync } from 'node:zlib';
import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { BatchRecord } from '../domain/delivery/ports';
import { batchIdOf, DeliverySample, type BatchRef, type BatchState } from '../domain/delivery/records';
import { CutOvers } from './cut-overs';
import { stateOf } from './delivery-items';
import { keys } from './keys';
import { newestAcross } from './across-partitions';
import type { LegacyLayout } from './legacy-layout';
import { queryAll, type TableClient } from './table-client';

/**
 * Reads of a destination's batches: where given batches stand, found in today's layout or an earlier one; and
 * across its batch partitions (one per delivery shard, and the one of the layout before shards while it holds
 * any item), the people's views and the audit, never the per-event path.
 */
export class DeliveryBatchReads {
  private readonly cutOvers: CutOvers;

  constructor(
    private readonly store: TableClient,
    private readonly legacy: LegacyLayout,
  ) {
    this.cutOvers = new CutOvers(store, 'deliveryLayoutCutOver');
  }

  /**
   * Where each batch stands, by `batchIdOf`, strongly consistent: one round trip per hundred batches. `found`
   * is told of each item read (and names its batch), wherever it was.
   */
  async readBatches(refs: BatchRef[], found: (item: Record<string, unknown>) => string): Promise<Map<string, BatchState>> {
    const states = new Map<string, BatchState>(refs.map((ref) => [batchIdOf(ref), { kind: 'absent' }]));
    // Each batch once: a stream batch may hand the same record over twice.
    const distinct = [...new Map(refs.map((ref) => [batchIdOf(ref), ref])).values()];
    const wanted: Record<string, unknown>[] = [];
    for (const ref of distinct) {
      const key = keys.deliveryBatch(ref.workspaceId, ref.destinationId, ref.requestId, ref.part);
      wanted.push(key);
      // A batch of a request received before its workspace's cut-over may be in a layout with fewer shards, in
      // a partition of today's that holds new items too: read beside (where the layouts agree, one key).
      if (await this.cutOvers.before(keys.deliveryLayoutCutOver(ref.workspaceId), ref.requestId)) {
        const earlier = keys.earlierDeliveryBatches(ref.workspaceId, ref.destinationId, ref.requestId, ref.part);
        wanted.push(...new Map(earlier.filter((e) => e.pk !== key.pk).map((e) => [e.pk, e])).values());
      }
      const old = keys.legacyDeliveryBatch(ref.workspaceId, ref.destinationId, ref.requestId, ref.part);
      if (await this.legacy.holds(old.pk)) wanted.push(old);
    }
    for (let i = 0; i < wanted.length; i += 100) {
      let request: Record<string, unknown>[] | undefined = wanted.slice(i, i + 100);
      while (request && request.length > 0) {
        const answer: BatchGetCommandOutput = await this.store.doc.send(
          new BatchGetCommand({ RequestItems: { [this.store.table]: { Keys: request, ConsistentRead: true } } }),
        );
        for (const item of answer.Responses?.[this.store.table] ?? []) states.set(found(item), stateOf(item));
        request = answer.UnprocessedKeys?.[this.store.table]?.Keys;
      }
    }
    return states;
  }

  /** Sets the workspace's cut-over to today's batch layout at `atMs`, unless it has one; the cut-over in force. */
  recordLayoutCutOver(workspaceId: string, atMs: number): Promise<number> {
    return this.cutOvers.record(keys.deliveryLayoutCutOver(workspaceId), atMs);
  }

  /** Every partition a destination's batches may be in. */
  async partitionsOf(workspaceId: string, destinationId: string): Promise<string[]> {
    const old = keys.legacyDeliveryBatch(workspaceId, destinationId, '', 0).pk;
    return [...keys.deliveryBatchPartitions(workspaceId, destinationId), ...(await this.legacy.partitionIfHeld(old))];
  }

  /**
   * The most recent batches of a destination, newest first (what was sent and answered), exactly the newest
   * `limit` across its partitions, in two rounds (newestAcross): a person's view, never the per-event path.
   */
  async recentBatches(workspaceId: string, destinationId: string, limit: number): Promise<{ finishedAt?: string; samples: DeliverySample[] }[]> {
    const items = await newestAcross(this.store, await this.partitionsOf(workspaceId, destinationId), limit);
    return items.map((item) => ({ finishedAt: item.finishedAt as string | undefined, samples: samplesOf(item.samples) }));
  }

  /**
   * The batches of a destination from one source, whose sort keys (request id, part) lie from `fromSk` to
   * `toSk`: where each stands, its trail, and whether it is in the scheduler's index. Samples are not read.
   */
  async batchesBetween(workspaceId: string, destinationId: string, sourceId: string, fromSk: string, toSk: string): Promise<BatchRecord[]> {
    const partitions = await this.partitionsOf(workspaceId, destinationId);
    const items = (
      await Promise.all(
        partitions.map((pk) =>
          queryAll(this.store, {
            KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
            FilterExpression: 'sourceId = :source',
            ExpressionAttributeValues: { ':pk': pk, ':from': fromSk, ':to': toSk, ':source': sourceId },
            ExpressionAttributeNames: { '#status': 'status', '#part': 'part', '#output': 'output' },
            ProjectionExpression: 'requestId, #part, #status, progress, #output, trail, leaseUntil, gsi1pk',
            ConsistentRead: true,
          }),
        ),
      )
    ).flat();
    return items.map((item) => ({
      requestId: String(item.requestId),
      part: Number(item.part),
      status: item.status === 'sending' ? 'sending' : 'done',
      position: { progress: Number(item.progress ?? 0), output: Number(item.output ?? 0) },
      ...(typeof item.trail === 'string' && { trail: item.trail }),
      ...(typeof item.leaseUntil === 'string' && { leaseUntil: item.leaseUntil }),
      indexed: item.gsi1pk !== undefined,
    }));
  }
}

/**
 * Samples are kept as gzipped JSON: they hold events, which may nest deeper than the 32 levels a DynamoDB map
 * allows, and alike events compress well (a batch's item is written in a transaction, at twice the units per
 * KB). Items written before kept them as JSON text or as maps; all read the same.
 */
function samplesOf(value: unknown): DeliverySample[] {
  let parsed: unknown = value;
  if (value instanceof Uint8Array) value = gunzipSync(value).toString('utf8');
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return [];
    }
  }
  const samples = DeliverySample.array().safeParse(parsed ?? []);
  return samples.success ? samples.data : [];
}
