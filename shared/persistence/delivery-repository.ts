import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type * as ports from '../domain/delivery/ports';
import type { BatchChange, FinishingBatch } from '../domain/delivery/ports';
import {
  BatchRef,
  batchIdOf,
  type BatchLookup,
  type BatchGuard,
  type BatchState,
  type GuardChange,
  type HeldRun,
  type NeedingAttention,
  type ParkedDelivery,
} from '../domain/delivery/records';
import { DeliveryBatchReads } from './delivery-batch-reads';
import { parseHeldRun } from './held-runs';
import { BatchFinishes } from './batch-finishes';
import { keys } from './keys';
import { attention, batchUpdate, outcomeCounts, ownership, parkedItem, parseParked, renews, statsItem, ttl } from './delivery-items';
import { batchExtras, parkExtras } from './failure-items';
import { isConditionFailure, putIfAbsent, queryPage, refusedItems, updateIf, updateItem, type TableClient, type TransactItem } from './table-client';

/** The values of a batch's entry in the scheduler's index at `at`. */
const indexAt = (ref: BatchRef, at: string) => {
  const entry = attention(at, 'B', batchIdOf(ref), `${ref.requestId}#${ref.part}`);
  return { ':gpk': entry.gsi1pk, ':gsk': entry.gsi1sk };
};

/** A transaction holds at most 100 items: the batch, the destination's counters, the parks, its hour's funnel and failures. */
export const MAX_PARKS_PER_WRITE = 90;

/**
 * Delivery state: a batch's position and counts (one item per ingest part and destination), parked retries,
 * a destination's counters. Every change is conditional, and every counter moves in the same write (or
 * transaction) as the state change it counts. Its reads are DeliveryBatchReads'.
 */
export class DeliveryRepository extends DeliveryBatchReads implements ports.DeliveryRepository {
  private readonly finishes: BatchFinishes;

  constructor(store: TableClient) {
    super(store);
    this.finishes = new BatchFinishes(store, this.runs, (guard, change) => this.writeBatch(guard, change));
  }

  holdRun(held: HeldRun): Promise<void> {
    return this.held.hold(held);
  }

  leaseRun(held: HeldRun, next: Pick<HeldRun, 'owner' | 'leaseUntil'>): Promise<HeldRun | undefined> {
    return this.held.lease(held, next);
  }

  endRun(held: HeldRun): Promise<void> {
    return this.held.end(held);
  }

  abandonRun(run: Pick<HeldRun, 'workspaceId' | 'destinationId' | 'runId'>): Promise<boolean> {
    return this.runs.abandon(run);
  }

  /** Where a batch's item is. */
  private keyOf(b: BatchRef) {
    return keys.deliveryBatch(b.workspaceId, b.destinationId, b.requestId, b.part);
  }

  /** Where a batch stands (strongly consistent): what delivery must skip or resume from. */
  async readBatch(ref: BatchLookup): Promise<BatchState> {
    return (await this.readBatches([ref])).get(batchIdOf(ref))!;
  }

  /**
   * Puts a batch another owner is running into the scheduler's index at its lease: found due whose owner
   * renewed the lease since (owners renew it without moving the entry), or handed over again while its
   * owner, maybe gone, had not entered it. Either way the scheduler finds it once the lease runs out.
   */
  async realignBatch(ref: BatchRef, leaseUntil: string): Promise<void> {
    await updateIf(this.store, {
      Key: this.keyOf(ref),
      UpdateExpression: 'SET gsi1pk = :gpk, gsi1sk = :gsk',
      ConditionExpression: 'leaseUntil = :lease AND #status IN (:sending, :finishing)',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':lease': leaseUntil, ':sending': 'sending', ':finishing': 'finishing', ...indexAt(ref, leaseUntil) },
    });
  }

  async unindexBatch(ref: BatchRef): Promise<void> {
    await updateIf(this.store, {
      Key: this.keyOf(ref),
      UpdateExpression: 'REMOVE gsi1pk, gsi1sk',
      ConditionExpression: '#status = :finishing',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':finishing': 'finishing' },
    });
  }

  /**
   * Records what a batch did up to `change.position`, in one write or one transaction with its parks and the
   * destination's counters. Returns what changed in the guard; undefined when the batch is no longer the
   * guard's (another owner took it over).
   *
   * More parks than one transaction holds (a failed chunk of a batch vendor, a run of held users) go ahead
   * in transactions of their own, each with the `retrying` it adds and under the batch's condition; the
   * position moves with the last of them. Should the process die in between, the batch resumes from where it
   * was: those events' users are held, so each is parked again under the same key, which is written, and
   * counted, once; none of them is sent again in the chunk.
   */
  async writeBatch(guard: BatchGuard, change: BatchChange): Promise<GuardChange | undefined> {
    // A takeover of a batch written finished in a run that counted nothing yet: that run can no longer count it.
    const { prior } = guard;
    if (!guard.established && prior.kind === 'sending' && prior.runId !== undefined)
      if (!(await this.runs.abandon({ workspaceId: guard.ref.workspaceId, destinationId: guard.ref.destinationId, runId: prior.runId }))) return undefined;
    if (change.finish && change.run !== undefined) return (await this.finishes.writeFinishing(guard, change, change.run)) ? { established: true } : undefined;
    let parks = change.parks;
    while (parks.length > MAX_PARKS_PER_WRITE) {
      if (!(await this.parkAhead(guard, parks.slice(0, MAX_PARKS_PER_WRITE)))) return undefined;
      parks = parks.slice(MAX_PARKS_PER_WRITE);
    }
    for (;;) {
      const batch = batchUpdate(this.store.table, guard, change);
      const stats =
        change.finish || parks.length > 0
          ? statsItem(
              this.store.table,
              guard.ref.workspaceId,
              guard.ref.destinationId,
              { ...(change.finish && outcomeCounts(guard.ref.sourceId, change.totals)), retrying: parks.length },
              change.finish?.errors ?? [],
              change.finish?.at ?? new Date().toISOString(),
            )
          : undefined;
      const extras = batchExtras(this.store.table, guard.ref, change, parks.length);
      try {
        if (!stats && extras.length === 0) await updateItem(this.store, batch.Update!);
        else {
          const items = [batch, ...(stats ? [stats] : []), ...parks.map((p) => this.parkPut(p)), ...extras];
          await this.store.doc.send(new TransactWriteCommand({ TransactItems: items }));
        }
        return { established: true, ...(!change.finish && renews(guard, change.leaseUntil) && { leaseUntil: change.leaseUntil }) };
      } catch (error) {
        const refused = refusedItems(error);
        if (!refused) {
          if (isConditionFailure(error)) return undefined;
          throw error;
        }
        if (refused[0] === 'ConditionalCheckFailed') return undefined;
        // Parks already there (a replay of a write that went through): written once, counted once.
        parks = parks.filter((_, i) => refused[i + 2] !== 'ConditionalCheckFailed');
      }
    }
  }

  /** Batches of one source at one destination finished together (batch-finishes.ts). */
  finishBatches(finishing: FinishingBatch[], run?: string): Promise<(GuardChange | undefined)[]> {
    return this.finishes.finish(finishing, run);
  }

  /** Parks written ahead of the batch's own write, under its condition: false when the batch is not the guard's. */
  private async parkAhead(guard: BatchGuard, group: ParkedDelivery[]): Promise<boolean> {
    let parks = group;
    while (parks.length > 0) {
      const { ref } = guard;
      const check: TransactItem = { ConditionCheck: { TableName: this.store.table, Key: this.keyOf(ref), ...ownership(guard) } };
      const stats = statsItem(this.store.table, ref.workspaceId, ref.destinationId, { retrying: parks.length }, [], new Date().toISOString());
      try {
        const window = parkExtras(this.store.table, ref, parks.length);
        await this.store.doc.send(new TransactWriteCommand({ TransactItems: [check, stats, ...parks.map((p) => this.parkPut(p)), ...window] }));
        return true;
      } catch (error) {
        const refused = refusedItems(error);
        if (!refused) throw error;
        if (refused[0] === 'ConditionalCheckFailed') return false;
        parks = parks.filter((_, i) => refused[i + 2] !== 'ConditionalCheckFailed');
      }
    }
    return true;
  }

  private parkPut(parked: ParkedDelivery): TransactItem {
    return { Put: putIfAbsent(this.store.table, { ...parkedItem(parked), expiresAt: ttl() }) };
  }

  /**
   * Gives a claim back (a stop), unstarted or after its last recorded write: due at once, in the scheduler's
   * index, so the scheduler or the next start takes it.
   */
  async releaseBatch(ref: BatchRef, owner: string, now: string): Promise<boolean> {
    return updateIf(this.store, {
      Key: this.keyOf(ref),
      UpdateExpression: 'SET leaseUntil = :lease, gsi1pk = :gpk, gsi1sk = :gsk',
      ConditionExpression: '#owner = :owner AND #status IN (:sending, :finishing)',
      ExpressionAttributeNames: { '#owner': 'owner', '#status': 'status' },
      ExpressionAttributeValues: { ':owner': owner, ':sending': 'sending', ':finishing': 'finishing', ':lease': now, ...indexAt(ref, now) },
    });
  }

  /**
   * Batches and held runs whose lease ran out and retries that are due, oldest first: the oldest of each index partition
   * (entries spread evenly over them), merged. Each partition is read for its share and a few more, not for
   * `limit`: a round runs every few seconds locally, and must not read its whole backlog each time.
   */
  async needingAttention(now: string, limit: number): Promise<NeedingAttention[]> {
    const each = Math.ceil(limit / keys.deliveryAttentionPartitions.length) + 5;
    const pages = await Promise.all(
      keys.deliveryAttentionPartitions.map((due) =>
        queryPage(this.store, {
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :due AND gsi1sk < :bound',
          ExpressionAttributeValues: { ':due': due, ':bound': `${now}#~` },
          Limit: each,
        }),
      ),
    );
    return pages
      .flat()
      .sort((a, b) => String(a.gsi1sk).localeCompare(String(b.gsi1sk)))
      .slice(0, limit)
      .flatMap((item): NeedingAttention[] => {
        if (item.entity === 'deliveryBatch') return [{ kind: 'batch', ref: BatchRef.parse(item) }];
        if (item.entity === 'deliveryHold') return [{ kind: 'run', held: parseHeldRun(item) }];
        if (item.entity === 'deliveryRetry') return [{ kind: 'retry', parked: parseParked(item) }];
        return [];
      });
  }
}
