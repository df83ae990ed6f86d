import { setTimeout as sleep } from 'node:timers/promises';
import { DeliveryLanes, type LaneJob } from '../../shared/domain/delivery/lanes';

/** A job that runs until `release` is called; made durable counts what its submitter stopped waiting for. */
function hangingJob() {
  let release!: () => void;
  const ran = new Promise<void>((resolve) => (release = resolve));
  const job = { durable: 0, run: () => ran, handBack: async () => {}, makeDurable: async () => void job.durable++ };
  return { job: job as LaneJob & { durable: number }, release };
}

describe('DeliveryLanes.settle', () => {
  const WAIT_MS = 150;

  it('waits for a lane that makes no progress once; later submitters do not wait for it until it moves again', async () => {
    const lanes = new DeliveryLanes(
      () => WAIT_MS,
      () => 5000,
    );
    const first = hangingJob();
    const second = hangingJob();
    const third = hangingJob();

    let started = performance.now();
    await lanes.settle([lanes.submit('hangs', first.job, { wait: true })]);
    expect(performance.now() - started).toBeGreaterThanOrEqual(WAIT_MS - 5);
    expect(first.job.durable).toBe(1);

    // Stalled: the next stream batch moves on at once (its work is made durable all the same).
    started = performance.now();
    await lanes.settle([lanes.submit('hangs', second.job, { wait: true })]);
    expect(performance.now() - started).toBeLessThan(WAIT_MS / 2);
    expect(second.job.durable).toBe(1);

    // Progress: the lane is waited for again.
    first.release();
    lanes.touch('hangs');
    const settling = lanes.settle([lanes.submit('hangs', third.job, { wait: true })]);
    await sleep(WAIT_MS / 3);
    second.release();
    lanes.touch('hangs');
    await sleep(WAIT_MS / 3);
    third.release();
    await settling;
    expect(third.job.durable).toBe(0);
    await lanes.idle();
  });

  it('waits for its own work, not for the progress of work queued ahead of it: behind a busy lane it moves on after one wait', async () => {
    const lanes = new DeliveryLanes(
      () => WAIT_MS,
      () => 5000,
    );
    // Work handed over earlier (a scheduler round's share, a batch its submitter stopped waiting for) that
    // keeps its destination answering for a long time.
    let busy = true;
    const earlier: LaneJob = {
      run: async () => {
        while (busy) {
          await sleep(WAIT_MS / 5);
          lanes.touch('busy');
        }
      },
      handBack: async () => {},
    };
    void lanes.submit('busy', earlier, { wait: false });
    const own = hangingJob();
    const started = performance.now();
    let waited: number;
    try {
      await lanes.settle([lanes.submit('busy', own.job, { wait: true })]);
      waited = performance.now() - started;
    } finally {
      busy = false;
      own.release();
      await lanes.idle();
    }
    // One wait for its work to begin, not the whole 5 s the lane keeps moving on the earlier work.
    expect(waited).toBeLessThan(2500);
    expect(own.job.durable).toBe(1);
  });

  it('makes what it stopped waiting for durable all at once, not one claim after another', async () => {
    const lanes = new DeliveryLanes(
      () => 20,
      () => 50,
    );
    let inFlight = 0;
    let most = 0;
    const claims: (() => void)[] = [];
    const job = (): LaneJob => ({
      run: () => new Promise<void>(() => undefined),
      handBack: async () => {},
      makeDurable: () => {
        most = Math.max(most, ++inFlight);
        return new Promise<void>((resolve) => claims.push(() => (inFlight--, resolve())));
      },
    });
    const settling = lanes.settle([1, 2, 3].map(() => lanes.submit('slow', job(), { wait: true })));
    for (let i = 0; i < 100 && claims.length < 3; i++) await sleep(5);
    expect(most).toBe(3);
    claims.forEach((claim) => claim());
    expect((await settling).size).toBe(0);
  });
});
