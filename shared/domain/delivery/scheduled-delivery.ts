import { randomUUID } from 'node:crypto';
import { countMetrics } from '../../ops/metrics';
import type { CatalogRepository } from '../catalog/ports';
import type { DuplicateFilter } from '../ingestion/duplicates';
import type { IngestRepository } from '../ingestion/ports';
import { suppressedIn, type SuppressionIndex } from '../regulations/suppression-index';
import type { BatchDelivery } from './batch-delivery';
import type { DeliveryLanes } from './lanes';
import type { DeliveryRepository } from './ports';
import { batchIdOf, heldRefs, storedRequestId, type BatchGuard, type BatchLookup, type HeldRun, type NeedingAttention, type ParkedDelivery } from './records';
import { RunHold } from './run-hold';
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
    private readonly deliveries: Pick<
      DeliveryRepository,
      'needingAttention' | 'readBatch' | 'realignBatch' | 'unindexBatch' | 'holdRun' | 'leaseRun' | 'endRun' | 'abandonRun'
    >,
    private readonly suppression: SuppressionIndex,
    private readonly batches: BatchDelivery,
    private readonly retries: ParkedRetries,
    private readonly newRound: () => DeliveryRound,
    private readonly lanes: DeliveryLanes,
    private readonly duplicates: DuplicateFilter,
  ) {}

  /**
   * Destinations whose share of an earlier round is still queued or running in their lane. A round adds none
   * for them: what is due stays due for a later round, so a lane never holds more than one round's share
   * (a share that outlasts the interval, behind a hanging send or slow retries, is not queued again and
   * again behind itself, each copy to be worked through before anything handed over after it).
   */
  private readonly inLane = new Set<string>();

  /**
   * One round: up to `limit` due items, shared fairly between the destinations that have any among the
   * oldest `limit × READ_AHEAD` (one at a time from each in turn, oldest first), so a destination with a long
   * backlog (one that hangs, or that failed for an hour) leaves room for the others in every round. Left out:
   * destinations whose earlier share is still in their lane, and batches this process already runs or has
   * queued (the stream consumer's, not waited for).
   */
  async runDue(limit = 100): Promise<number> {
    const found = await this.deliveries.needingAttention(iso(Date.now()), limit * READ_AHEAD);
    countMetrics({ SchedulerBacklog: found.length }, { scheduler: 'delivery' });
    const open = found.filter((item) => !this.inLane.has(destinationOf(item)) && !this.runsHere(item));
    const byDestination = fairShare(open, limit);
    let count = 0;
    const tickets = [...byDestination].map(([destinationId, queue]) => {
      this.inLane.add(destinationId);
      const ticket = this.lanes.submit(
        destinationId,
        {
          run: async () => {
            for (const item of queue) {
              // A stop takes no more of the round: what is left stays due.
              if (this.lanes.isStopping) break;
              if (item.kind === 'retry') count += await this.retryUser(item.parked);
              else if (item.kind === 'run') count += await this.resumeRun(item.held);
              else if (await this.resume(item.ref)) count++;
            }
          },
          handBack: async () => undefined, // nothing was claimed yet: the items stay due
        },
        { wait: true },
      );
      void ticket.done.catch(() => undefined).finally(() => this.inLane.delete(destinationId));
      return ticket;
    });
    await this.lanes.settle(tickets);
    return count;
  }

  /**
   * A parked delivery's attempt, and, each time one ends, its user's next one at once: a user held behind a
   * failure catches up within a round (at most USER_CATCH_UP of theirs), not one delivery a round.
   */
  private async retryUser(parked: ParkedDelivery): Promise<number> {
    let count = 0;
    let next: ParkedDelivery | undefined = parked;
    for (let n = 0; next && n < USER_CATCH_UP && !this.lanes.isStopping; n++) {
      const attempt: { attempted: boolean; next?: ParkedDelivery } = await this.retries.attempt(next);
      if (attempt.attempted) count++;
      next = attempt.next;
    }
    return count;
  }

  /** Whether this process runs the batch, or one of the held run's, already (the stream consumer's, not waited for). */
  private runsHere(item: NeedingAttention): boolean {
    if (item.kind === 'retry') return false;
    return (item.kind === 'batch' ? [item.ref] : heldRefs(item.held)).some((ref) => this.batches.running.has(batchIdOf(ref)));
  }

  /**
   * A held run whose lease ran out (its process died, or stopped): taken over, each of its batches resumed from
   * where its item stands (done: skipped; another's live lease: theirs; absent: claimed before its first send),
   * then ended. Its run is ended as abandoned first, unless its record says done: then the batches it lists
   * are done, and no batch of it can be counted by the run from then on. Should this process die meanwhile,
   * its lease runs out again.
   */
  private async resumeRun(held: HeldRun): Promise<number> {
    const taken = await this.deliveries.leaseRun(held, { owner: randomUUID(), leaseUntil: this.batches.leaseUntil() });
    if (!taken) return 0;
    const hold = new RunHold(this.deliveries, taken, Date.parse(taken.leaseUntil) - Date.now(), taken);
    let count = 0;
    try {
      const done = !(await this.deliveries.abandonRun(held));
      for (const ref of heldRefs(held)) {
        // A stop: what is left stays held, due once this lease runs out.
        if (this.lanes.isStopping || hold.lost) return count;
        if (await this.resume({ ...ref, ...(done && { inRun: held.runId }) }, { absentToo: true })) count++;
      }
      await hold.end();
      return count;
    } catch (error) {
      hold.abandon();
      throw error;
    }
  }

  /** A batch whose lease ran out: taken over and resumed after its last recorded output. */
  private async resume(lookup: BatchLookup, options: { absentToo?: boolean } = {}): Promise<boolean> {
    const { inRun: _, ...ref } = lookup;
    const id = batchIdOf(ref);
    if (this.batches.running.has(id)) return false;
    const [stored, destination, prior] = await Promise.all([
      this.ingest.readPart(ref.workspaceId, ref.sourceId, storedRequestId(ref.requestId), ref.part),
      this.catalog.getDestination(ref.workspaceId, ref.destinationId),
      this.deliveries.readBatch(lookup),
    ]);
    // Done in a run while another had put it in the index: its entry goes, or it would be found every round.
    if (prior.kind === 'done') {
      if (prior.indexed) await this.deliveries.unindexBatch(ref);
      return false;
    }
    if (prior.kind === 'absent' && !options.absentToo) return false;
    if (prior.kind === 'sending' && prior.leaseUntil >= iso(Date.now())) {
      await this.deliveries.realignBatch(ref, prior.leaseUntil);
      return false;
    }
    // Another run may have read it as it stands too: the claim goes before anything is sent.
    const guard: BatchGuard = { ref, owner: randomUUID(), prior, established: false, claimFirst: true };
    // Its destination deleted or its events expired: nothing can finish it, and it must not stay due for ever.
    if (!stored || !destination) {
      await this.batches.close(guard);
      return true;
    }
    // Counted when the stream handed the part over; only left out again here.
    const [suppressed] = (await suppressedIn(this.suppression, [{ ...ref, events: stored }])).indexes;
    // The part's own claims are found again: what was a duplicate stays one.
    const [duplicates] = (await this.duplicates.duplicatesIn([{ ...ref, events: stored }])).indexes;
    const abort = destination.enabled ? undefined : 'the destination was disabled';
    const run = this.batches.run(
      guard,
      destination,
      { events: stored, suppressed: suppressed!, duplicates: duplicates!, ...(abort && { abort }) },
      this.newRound(),
    );
    this.batches.running.set(id, {
      destinationId: destination.id,
      job: { run: async () => void (await run), handBack: async () => undefined },
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

/** How many of one user's parked deliveries a round attempts one after the other. */
const USER_CATCH_UP = 25;

/** How far past a round's share the scheduler reads to find the destinations waiting. */
const READ_AHEAD = 5;

const destinationOf = (item: NeedingAttention) =>
  item.kind === 'batch' ? item.ref.destinationId : item.kind === 'run' ? item.held.destinationId : item.parked.destinationId;

/** Up to `limit` items, taken one from each destination in turn, each destination's oldest first. */
export function fairShare(items: NeedingAttention[], limit: number): Map<string, NeedingAttention[]> {
  const waiting = new Map<string, NeedingAttention[]>();
  for (const item of items) waiting.set(destinationOf(item), [...(waiting.get(destinationOf(item)) ?? []), item]);
  const taken = new Map<string, NeedingAttention[]>();
  let count = 0;
  for (let turn = 0; count < limit; turn++) {
    let any = false;
    for (const [id, queue] of waiting) {
      const item = queue[turn];
      if (!item || count >= limit) continue;
      any = true;
      taken.set(id, [...(taken.get(id) ?? []), item]);
      count++;
    }
    if (!any) break;
  }
  return taken;
}
