import { componentLogger } from '../../ops/logger';

const log = componentLogger('delivery');

/** Work for one destination: `run` does it; `handBack` gives its claim back when a stop comes first. */
export interface LaneJob {
  run(): Promise<void>;
  handBack(): Promise<void>;
  /** Makes queued or running work durable (a claim) before its submitter moves on without it. */
  makeDurable?(): Promise<void>;
}

/** A job handed to a lane: settled once it is done, or once its submitter stopped waiting for it. */
export interface Ticket {
  destinationId: string;
  job: LaneJob;
  done: Promise<'done'>;
  /** False when the destination is known to be failing: its submitter does not wait for it at all. */
  wait: boolean;
}

interface Lane {
  queue: { job: LaneJob; settle: (error?: unknown) => void }[];
  running: boolean;
  /** The job the lane runs now. */
  current?: LaneJob;
  /** Called when the lane's work moves on (a destination answered), with the job that moved. */
  onProgress: ((job: LaneJob | undefined) => void)[];
  /** A submitter stopped waiting for it without progress, and none came since: later ones do not wait. */
  stalled: boolean;
}

/**
 * Delivery lanes: one per destination, per process. A destination's work runs in its lane, in the order it
 * came; lanes run side by side and never wait on each other, so a destination that hangs holds up only its
 * own lane, never another destination's, nor another workspace's.
 *
 * A submitter (the stream consumer, the scheduler) hands its work over, then settles it: it waits for each
 * lane while that lane makes progress on the submitter's own work (its destination answers at least every
 * `waitMs`), for at most `maxWaitMs` in all, and stops waiting for a lane that stalls, or whose destination is
 * failing. So a destination that hangs costs `waitMs` once (later submitters do not wait for a lane that
 * stalled until it moves again), and one that is slow but answering at most `maxWaitMs`. Work queued ahead
 * of the submitter's (an earlier batch it stopped waiting for, a scheduler round's share) is not its
 * progress: behind it, the submitter waits `waitMs` at most for its own work to begin, however busily the lane
 * works through the rest. What it stops waiting for is made durable first, so work that never runs (a crash) is found
 * again when its lease runs out.
 */
export class DeliveryLanes {
  private readonly lanes = new Map<string, Lane>();
  private stopping = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly waitMs: () => number,
    private readonly maxWaitMs: () => number,
  ) {}

  /** The lane's work moved on (its code ran, its destination answered, its outcome was written). */
  touch(destinationId: string): void {
    const lane = this.lanes.get(destinationId);
    if (!lane) return;
    lane.stalled = false;
    for (const notify of lane.onProgress.splice(0)) notify(lane.current);
  }

  /** The lane's next progress, and whose job it was. */
  private progressOf(destinationId: string): Promise<{ by: LaneJob | undefined }> {
    const lane = this.lanes.get(destinationId);
    return new Promise((resolve) => lane?.onProgress.push((by) => resolve({ by })));
  }

  submit(destinationId: string, job: LaneJob, options: { wait: boolean }): Ticket {
    let lane = this.lanes.get(destinationId);
    if (!lane) this.lanes.set(destinationId, (lane = { queue: [], running: false, onProgress: [], stalled: false }));
    const done = new Promise<'done'>((resolve, reject) => lane.queue.push({ job, settle: (error) => (error === undefined ? resolve('done') : reject(error)) }));
    done.catch((error: unknown) => log.error('delivery work failed; its lease will run out and it is resumed', { destinationId, error }));
    void this.pump(destinationId, lane);
    return { destinationId, job, done, wait: options.wait && !this.stopping };
  }

  /**
   * Waits for the tickets' lanes while each makes progress; makes durable what it stops waiting for, and
   * what failed.
   * Returns the tickets that could be made durable neither by finishing nor by their claim, with the error.
   */
  async settle(tickets: Ticket[]): Promise<Map<Ticket, unknown>> {
    const failed = new Map<Ticket, unknown>();
    const byLane = new Map<string, Ticket[]>();
    for (const ticket of tickets) byLane.set(ticket.destinationId, [...(byLane.get(ticket.destinationId) ?? []), ticket]);
    const until = Date.now() + this.maxWaitMs();
    await Promise.all(
      [...byLane.values()].map(async (pending) => {
        const succeeded = await this.waitFor(pending, until);
        // Each batch's claim is a write of its own: all at once, not one after another.
        await Promise.all(
          pending
            .filter((t) => !succeeded.has(t))
            .map(async (t) => {
              try {
                await t.job.makeDurable?.();
              } catch (error) {
                failed.set(t, error);
              }
            }),
        );
      }),
    );
    return failed;
  }

  /**
   * Waits for one lane's tickets until `until`, each wait renewed by progress on one of their jobs (or one of
   * them settling); returns those that succeeded (the others, failed or not waited for, are made durable).
   */
  private async waitFor(pending: Ticket[], until: number): Promise<Set<Ticket>> {
    const destinationId = pending[0]!.destinationId;
    const settled = new Set<Ticket>();
    const succeeded = new Set<Ticket>();
    for (const t of pending)
      void t.done.then(
        () => (settled.add(t), succeeded.add(t)),
        () => settled.add(t),
      );
    if (!pending.every((t) => t.wait) || this.lanes.get(destinationId)?.stalled) return succeeded;
    const own = new Set(pending.map((t) => t.job));
    const stall = this.waitMs();
    let since = Date.now();
    /** Whether the lane moved on other work since its last progress on these tickets. */
    let moved = false;
    while (settled.size < pending.length) {
      let timer: NodeJS.Timeout | undefined;
      const deadline = Math.min(since + stall, until);
      const timeout = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), Math.max(0, deadline - Date.now()))));
      const open = pending.filter((t) => !settled.has(t));
      const next = await Promise.race([timeout, this.progressOf(destinationId), ...open.map((t) => t.done.catch(() => 'done' as const))]);
      clearTimeout(timer);
      // Let the settled set catch up with the job that just finished.
      await Promise.resolve();
      if (next === 'waited') {
        // No progress at all for a whole wait: the next submitters do not wait for this lane until it moves.
        const lane = this.lanes.get(destinationId);
        if (lane && !moved && deadline - since >= stall && settled.size < pending.length) lane.stalled = true;
        break;
      }
      if (next === 'done' || (next.by && own.has(next.by))) [since, moved] = [Date.now(), false];
      else moved = true;
    }
    return succeeded;
  }

  private async pump(destinationId: string, lane: Lane): Promise<void> {
    if (lane.running) return;
    lane.running = true;
    for (let entry = lane.queue.shift(); entry; entry = lane.queue.shift()) {
      lane.current = entry.job;
      try {
        await (this.stopping ? entry.job.handBack() : entry.job.run());
        entry.settle();
      } catch (error) {
        entry.settle(error);
      }
    }
    lane.running = false;
    lane.current = undefined;
    this.lanes.delete(destinationId);
    if (this.lanes.size === 0) this.idleWaiters.splice(0).forEach((resolve) => resolve());
  }

  /** A stop is under way: work in progress ends at its next recorded write and gives its claim back. */
  get isStopping(): boolean {
    return this.stopping;
  }

  /** Resolves once no lane has work (tests and the local runtime's drain use it). */
  idle(): Promise<void> {
    if (this.lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /**
   * A stop: work not begun hands its claim back, work in progress stops at its next recorded write (a batch
   * gives its claim back there, due at once), nothing new is taken.
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.idle();
    this.stopping = false; // the runtime that stopped is gone; a new one in this process starts afresh
  }
}
