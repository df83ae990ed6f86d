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
  /** Called when the lane's work moves on (a destination answered): a submitter waiting for it waits on. */
  onProgress: (() => void)[];
  /** A submitter stopped waiting for it without progress, and none came since: later ones do not wait. */
  stalled: boolean;
}

/**
 * Delivery lanes: one per destination, per process. A destination's work runs in its lane, in the order it
 * came; lanes run side by side and never wait on each other, so a destination that hangs holds up only its
 * own lane, never another destination's, nor another workspace's.
 *
 * A submitter (the stream consumer, the scheduler) hands its work over, then settles it: it waits for each
 * lane while that lane makes progress (its destination answers at least every `waitMs`), for at most
 * `maxWaitMs` in all, and stops waiting for a lane that stalls, or whose destination is failing. So a
 * destination that hangs costs `waitMs` once (later submitters do not wait for a lane that stalled until it
 * moves again), and one that is slow but answering at most `maxWaitMs`. What it stops waiting for is made durable first, so work that never runs (a crash) is found
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
    for (const notify of lane.onProgress.splice(0)) notify();
  }

  private progressOf(destinationId: string): Promise<'progress'> {
    const lane = this.lanes.get(destinationId);
    return new Promise((resolve) => lane?.onProgress.push(() => resolve('progress')));
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
        // Settled: done, or failed (a failed job is made durable below, like one not waited for).
        const settled = new Set<Ticket>();
        const succeeded = new Set<Ticket>();
        for (const t of pending)
          void t.done.then(
            () => (settled.add(t), succeeded.add(t)),
            () => settled.add(t),
          );
        let waiting = pending.every((t) => t.wait) && !this.lanes.get(pending[0]!.destinationId)?.stalled;
        while (waiting && settled.size < pending.length) {
          let timer: NodeJS.Timeout | undefined;
          const stall = this.waitMs();
          const wait = Math.min(stall, until - Date.now());
          const timeout = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), Math.max(0, wait))));
          const open = pending.filter((t) => !settled.has(t));
          const next = await Promise.race([timeout, this.progressOf(pending[0]!.destinationId), ...open.map((t) => t.done.catch(() => 'done' as const))]);
          clearTimeout(timer);
          // Let the settled set catch up with the job that just finished.
          await Promise.resolve();
          if (next === 'waited') {
            waiting = false;
            // No progress for a whole wait: the next submitters do not wait for this lane until it moves.
            const lane = this.lanes.get(pending[0]!.destinationId);
            if (lane && wait >= stall && settled.size < pending.length) lane.stalled = true;
          }
        }
        for (const t of pending) {
          if (succeeded.has(t)) continue;
          try {
            await t.job.makeDurable?.();
          } catch (error) {
            failed.set(t, error);
          }
        }
      }),
    );
    return failed;
  }

  private async pump(destinationId: string, lane: Lane): Promise<void> {
    if (lane.running) return;
    lane.running = true;
    for (let entry = lane.queue.shift(); entry; entry = lane.queue.shift()) {
      try {
        await (this.stopping ? entry.job.handBack() : entry.job.run());
        entry.settle();
      } catch (error) {
        entry.settle(error);
      }
    }
    lane.running = false;
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
