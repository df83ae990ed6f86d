import { randomUUID } from 'node:crypto';
import { countMetrics } from '../../ops/metrics';
import type { CatalogRepository } from '../catalog/ports';
import type { IngestRepository } from '../ingestion/ports';
import { suppressedIn, type SuppressionIndex } from '../regulations/suppression-index';
import type { BatchDelivery } from './batch-delivery';
import type { DeliveryLanes } from './lanes';
import type { DeliveryRepository } from './ports';
import { batchIdOf, type BatchGuard, type BatchRef, type NeedingAttention } from './records';
import type { ParkedRetries } from './retries';
import type { DeliveryRound } from './round';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * The scheduler's round: batches whose delivery was interrupted (lease run out) resume after their last
 * recorded output; parked deliveries that are due get their next attempt. Each destination's share goes to
 * its lane, so one that hangs holds up none of the others.
 */
export class ScheduledDelivery {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getDestination'>,
    private readonly ingest: Pick<IngestRepository, 'readPart'>,
    private readonly deliveries: Pick<DeliveryRepository, 'needingAttention' | 'readBatch' | 'realignBatch'>,
    private readonly suppression: SuppressionIndex,
    private readonly batches: BatchDelivery,
    private readonly retries: ParkedRetries,
    private readonly newRound: () => DeliveryRound,
    private readonly lanes: DeliveryLanes,
  ) {}

  async runDue(limit = 100): Promise<number> {
    const items = await this.deliveries.needingAttention(iso(Date.now()), limit);
    countMetrics({ SchedulerBacklog: items.length }, { scheduler: 'delivery' });
    const byDestination = new Map<string, NeedingAttention[]>();
    for (const item of items) {
      const id = item.kind === 'batch' ? item.ref.destinationId : item.parked.destinationId;
      byDestination.set(id, [...(byDestination.get(id) ?? []), item]);
    }
    let count = 0;
    const tickets = [...byDestination].map(([destinationId, queue]) =>
      this.lanes.submit(
        destinationId,
        {
          run: async () => {
            for (const item of queue) {
              // A stop takes no more of the round: what is left stays due.
              if (this.lanes.isStopping) break;
              if (await (item.kind === 'retry' ? this.retries.attempt(item.parked) : this.resume(item.ref))) count++;
            }
          },
          handBack: async () => undefined, // nothing was claimed yet: the items stay due
        },
        { wait: true },
      ),
    );
    await this.lanes.settle(tickets);
    return count;
  }

  /** A batch whose lease ran out: taken over and resumed after its last recorded output. */
  private async resume(ref: BatchRef): Promise<boolean> {
    const id = batchIdOf(ref);
    if (this.batches.running.has(id)) return false;
    const [stored, destination, prior] = await Promise.all([
      this.ingest.readPart(ref.workspaceId, ref.sourceId, ref.requestId, ref.part),
      this.catalog.getDestination(ref.workspaceId, ref.destinationId),
      this.deliveries.readBatch(ref),
    ]);
    if (prior.kind !== 'sending') return false;
    if (prior.leaseUntil >= iso(Date.now())) {
      await this.deliveries.realignBatch(ref, prior.leaseUntil);
      return false;
    }
    const guard: BatchGuard = { ref, owner: randomUUID(), prior, established: false };
    // Its destination deleted or its events expired: nothing can finish it, and it must not stay due for ever.
    if (!stored || !destination) {
      await this.batches.close(guard);
      return true;
    }
    // Counted when the stream handed the part over; only left out again here.
    const [suppressed] = (await suppressedIn(this.suppression, [{ ...ref, events: stored }])).indexes;
    const abort = destination.enabled ? undefined : 'the destination was disabled';
    const run = this.batches.run(guard, destination, { events: stored, suppressed: suppressed!, ...(abort && { abort }) }, this.newRound());
    this.batches.running.set(id, {
      destinationId: destination.id,
      job: { run: () => run, handBack: async () => undefined },
      done: run.then(() => 'done' as const),
      wait: true,
    });
    try {
      await run;
    } finally {
      this.batches.running.delete(id);
    }
    return true;
  }
}
