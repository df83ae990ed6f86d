import { componentLogger } from '../../ops/logger';

const log = componentLogger('delivery');

/** Work for one destination: `run` does it; `handBack` gives its claim back when a stop comes first. */
export interface LaneJob {
  run(): Promise<void>;
  handBack(): Promise<void>;
  /** Called before the submitter moves on while the job is queued or running: makes it durable (a claim). */
  makeDurable?(): Promise<void>;
}

interface Lane {
  queue: { job: LaneJob; settle: (error?: unknown) => void }[];
  running: boolean;
}

/**
 * Delivery lanes: one per destination, per process. A destination's work runs in its lane, in the order it
 * came; lanes run side by side and never wait on each other, so a destination that hangs holds up only its
 * own lane, never another destination's, nor another workspace's.
 *
 * Whoever submits work (the stream consumer, the scheduler) has made its claim durable first, so work that
 * never runs (a crash) is found again when its lease runs out. The submitter waits for its work, up to
 * `waitMs`, only where the lane was idle and the destination's circuit closed: a lane that is busy or failing
 * is never waited on, and what is submitted to it goes on in the lane after the submitter has moved on.
 */
export class DeliveryLanes {
  private readonly lanes = new Map<string, Lane>();
  private stopping = false;
  private idleWaiters: (() => void)[] = [];

  constructor(private readonly waitMs: () => number) {}

  async submit(destinationId: string, job: LaneJob, options: { wait: boolean }): Promise<void> {
    if (this.stopping) return job.handBack();
    let lane = this.lanes.get(destinationId);
    if (!lane) this.lanes.set(destinationId, (lane = { queue: [], running: false }));
    const idle = !lane.running && lane.queue.length === 0;
    const done = new Promise<void>((resolve, reject) => lane.queue.push({ job, settle: (error) => (error === undefined ? resolve() : reject(error)) }));
    void this.pump(destinationId, lane);
    if (!(idle && options.wait)) {
      done.catch((error: unknown) => log.error('delivery work failed; its lease will run out and it is resumed', { destinationId, error }));
      await job.makeDurable?.();
      return;
    }
    let timer: NodeJS.Timeout | undefined;
    const waited = new Promise<'waited'>((resolve) => (timer = setTimeout(() => resolve('waited'), this.waitMs())));
    try {
      if ((await Promise.race([done, waited])) === 'waited') {
        done.catch((error: unknown) => log.error('delivery work failed; its lease will run out and it is resumed', { destinationId, error }));
        await job.makeDurable?.();
      }
    } finally {
      clearTimeout(timer);
    }
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

  /** Resolves once no lane has work (tests and the local runtime's drain use it). */
  idle(): Promise<void> {
    if (this.lanes.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  /** A stop: work in progress finishes, work not begun hands its claim back, nothing new is taken. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.idle();
    this.stopping = false; // the runtime that stopped is gone; a new one in this process starts afresh
  }
}
