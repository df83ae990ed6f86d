import { setTimeout as sleep } from 'node:timers/promises';
import { encodePlainJson, readOutcome } from '../../../shared/sandbox/bjson';
import { DEFAULT_LIMITS } from '../../../shared/sandbox/limits';
import { SandboxPool } from '../../../shared/sandbox/pool';
import type { WorkerRequest } from '../../../shared/sandbox/protocol';

// A worker takes a snapshot only when its pool lets it: when no work waits, and another worker is
// ready for what comes next (or it is the only one).

const request = (n: number) => ({
  op: 'run' as const,
  code: 'export function transformEvent(e) { return { id: e.messageId, n: e.n }; }',
  name: 'pool capture',
  libraries: [],
  input: encodePlainJson([{ message: { messageId: 'm', n }, metadata: {} }])!,
  testMode: false,
  limits: DEFAULT_LIMITS,
  allowlist: '',
});

interface PooledInternals {
  ready: boolean;
  job?: unknown;
  worker: { postMessage: (m: WorkerRequest, t?: unknown) => void };
}

interface PoolInternals {
  workers: Set<PooledInternals>;
  queue: unknown[];
}

/** What the pool looked like when it sent a worker a snapshot request. */
interface CaptureSent {
  /** Jobs waiting in the queue. */
  waiting: number;
  /** Whether another worker was ready to take work meanwhile. */
  otherReady: boolean;
}

/** Records the snapshot requests the pool sends to its workers. */
function captures(pool: SandboxPool): CaptureSent[] {
  const internals = pool as unknown as PoolInternals;
  const sent: CaptureSent[] = [];
  for (const pooled of internals.workers) {
    const post = pooled.worker.postMessage.bind(pooled.worker);
    pooled.worker.postMessage = (message: WorkerRequest, transfer?: unknown) => {
      if (message.op === 'capture') {
        const otherReady = [...internals.workers].some((other) => other !== pooled && other.ready && !other.job);
        sent.push({ waiting: internals.queue.length, otherReady });
      }
      post(message, transfer as never);
    };
  }
  return sent;
}

/** Waits until every worker of the pool is ready, so that each of the next jobs goes to its own worker. */
async function allReady(pool: SandboxPool, count: number): Promise<void> {
  const { workers } = pool as unknown as PoolInternals;
  while (workers.size < count || [...workers].some((w) => !w.ready)) await sleep(10);
}

async function expectResult(pool: SandboxPool, n: number): Promise<void> {
  const outcome = await pool.submit(request(n));
  expect(outcome.ok && readOutcome(outcome.output)).toMatchObject({ r: [[0, { id: 'm', n }]] });
}

describe('snapshots taken through the pool', () => {
  it('a lone worker takes one after the second load, once nothing waits', async () => {
    const pool = new SandboxPool(1);
    try {
      await expectResult(pool, 1);
      const sent = captures(pool);
      await expectResult(pool, 2);
      expect(sent).toEqual([{ waiting: 0, otherReady: false }]);
      await expectResult(pool, 3);
      expect(sent).toHaveLength(1);
    } finally {
      await pool.shutdown();
    }
  }, 60_000);

  it('of two workers that finish their second load together, one takes it while the other stays ready', async () => {
    const pool = new SandboxPool(2);
    try {
      // Both workers started (with other code), then each loads the code once.
      await Promise.all([pool.submit({ ...request(0), code: 'export function transformEvent(e) { return e; }' }), pool.submit(request(0))]);
      await allReady(pool, 2);
      const sent = captures(pool);
      for (let round = 1; round <= 3; round++) {
        await Promise.all([expectResult(pool, 2 * round), expectResult(pool, 2 * round + 1)]);
        await allReady(pool, 2);
      }
      expect(sent.length).toBeGreaterThanOrEqual(1);
      expect(sent.every((s) => s.waiting === 0 && s.otherReady)).toBe(true);
    } finally {
      await pool.shutdown();
    }
  }, 60_000);

  it('no snapshot is taken while work waits, only once none does', async () => {
    const pool = new SandboxPool(1);
    try {
      await expectResult(pool, 1);
      const sent = captures(pool);
      // The second load ends with a third invocation queued behind it: the snapshot waits for that one.
      await Promise.all([expectResult(pool, 2), expectResult(pool, 3)]);
      expect(sent).toEqual([{ waiting: 0, otherReady: false }]);
    } finally {
      await pool.shutdown();
    }
  }, 60_000);
});
