import { randomUUID } from 'node:crypto';
import type { CatalogRepository } from '../catalog/ports';
import type { Destination } from '../catalog/schemas';
import type { BatchDelivery } from '../delivery/batch-delivery';
import type { DeliveryRepository } from '../delivery/ports';
import { replayRequestId, type BatchRef } from '../delivery/records';
import type { DeliveryRound } from '../delivery/round';
import { OutcomeTrail } from '../delivery/trail';
import { now } from '../ids';
import type { DuplicateFilter } from '../ingestion/duplicates';
import { suppressedIn, type SuppressionIndex } from '../regulations/suppression-index';
import type { ArchivedPart, ArchiveReads, ReplayRepository } from './ports';
import type { Replay, ReplayProgress } from './schemas';

/** Stored parts read at a time. */
const PARTS_PER_READ = 10;
/** Replays taken up in one run. */
const REPLAYS_PER_RUN = 20;

/** What a finished batch of a part came to, from its trail: each output's outcome, and the part's events. */
export function tallyOf(trail: string | undefined, events: number): ReplayProgress {
  const progress: ReplayProgress = { parts: 1, events, delivered: 0, filtered: 0, aborted: 0, retrying: 0, suppressed: 0, duplicate: 0 };
  for (const slot of new OutcomeTrail(trail).slots()) progress[slot.state]++;
  return progress;
}

/**
 * Sends replays: each stored part of the window, oldest first, as a batch of its own to the destination
 * (the same machinery as live delivery: the current transformation, chunks, parks in each user's order,
 * exactly-once records), skipping users suppressed now and duplicates. A part counts in the replay's progress once its batch
 * is done, in the conditional write that moves the replay's cursor past it: a crash, a second runner or a
 * cancellation never counts or sends a part twice. A batch left half-sent by a crash is resumed after its
 * lease, by the next run or by the delivery scheduler, from its last recorded write.
 */
export class ReplayRunner {
  constructor(
    private readonly replays: ReplayRepository,
    private readonly archive: ArchiveReads,
    private readonly catalog: Pick<CatalogRepository, 'getDestination'>,
    private readonly deliveries: Pick<DeliveryRepository, 'readBatch'>,
    private readonly suppression: SuppressionIndex,
    private readonly batches: BatchDelivery,
    private readonly newRound: () => DeliveryRound,
    private readonly duplicates: DuplicateFilter,
  ) {}

  /** Runs the running replays until `budgetMs` is spent (each at least one part). Returns how many parts were finished. */
  async runActive(budgetMs: number): Promise<number> {
    const deadline = Date.now() + budgetMs;
    let parts = 0;
    for (const replay of await this.replays.running(REPLAYS_PER_RUN)) parts += await this.runOne(replay, deadline);
    return parts;
  }

  private async runOne(replay: Replay, deadline: number): Promise<number> {
    const round = this.newRound();
    const window = { fromMs: Date.parse(replay.from), toMs: Date.parse(replay.to) };
    let current = replay;
    let finished = 0;
    for (;;) {
      const destination = await this.catalog.getDestination(replay.workspaceId, replay.destinationId);
      if (!destination?.enabled) {
        await this.replays.finish(replay, 'failed', now(), `the destination was ${destination ? 'disabled' : 'deleted'}`);
        return finished;
      }
      const parts = await this.archive.archivedParts(replay.workspaceId, replay.sourceId, { ...window, after: current.cursor }, PARTS_PER_READ);
      if (parts.length === 0) {
        await this.replays.finish(current, 'completed', now());
        return finished;
      }
      for (const part of parts) {
        const tally = await this.replayPart(current, destination, part, round);
        // Another owner holds the part's batch (its lease has not run out): the next run goes on.
        if (!tally) return finished;
        const advanced = await this.replays.advance(current, part.position, tally, now());
        // Cancelled, or another runner moved on: this one stops.
        if (!advanced) return finished;
        current = advanced;
        finished++;
        if (Date.now() >= deadline) return finished;
      }
    }
  }

  /** Sends one stored part's batch unless it is done; what it came to, or undefined while another owner has it. */
  private async replayPart(replay: Replay, destination: Destination, part: ArchivedPart, round: DeliveryRound): Promise<ReplayProgress | undefined> {
    const ref: BatchRef = {
      workspaceId: replay.workspaceId,
      sourceId: replay.sourceId,
      destinationId: replay.destinationId,
      requestId: replayRequestId(replay.id, part.requestId),
      part: part.part,
    };
    let state = await this.deliveries.readBatch(ref);
    if (state.kind === 'sending' && state.leaseUntil >= now()) return undefined;
    if (state.kind !== 'done') {
      const [suppressed] = (await suppressedIn(this.suppression, [{ ...ref, events: part.events }])).indexes;
      // The part's own claims: a duplicate when it came stays one.
      const [duplicates] = (await this.duplicates.duplicatesIn([{ ...ref, requestId: part.requestId, events: part.events }])).indexes;
      await this.batches.run(
        { ref, owner: randomUUID(), prior: state, established: false },
        destination,
        { events: part.events, suppressed: suppressed!, duplicates: duplicates! },
        round,
      );
      state = await this.deliveries.readBatch(ref);
      if (state.kind !== 'done') return undefined;
    }
    return tallyOf(state.trail, part.events.length);
  }
}
