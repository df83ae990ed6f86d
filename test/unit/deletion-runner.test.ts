import type { DeletionIO, DestinationRequest, DeliveryResult } from '../../shared/destinations';
import type { CatalogRepository } from '../../shared/domain/catalog/ports';
import type { Destination } from '../../shared/domain/catalog/schemas';
import { DeletionRunner, type RetryPolicy } from '../../shared/domain/regulations/deletion-runner';
import type { DeletionJobRepository, RegulationRepository } from '../../shared/domain/regulations/ports';
import type { DeletionJob, Regulation } from '../../shared/domain/regulations/schemas';

/** The deletion use case against in-memory fakes of its ports: no table, no vendor. */
const POLICY: RetryPolicy = { maxAttempts: 3, baseDelayMs: 60_000, maxDelayMs: 3_600_000, leaseMs: 300_000 };
const MINUTE = 60_000;

const regulation = (overrides: Partial<Regulation> = {}): Regulation => ({
  id: '0190a000-0000-7000-8000-000000000001',
  workspaceId: 'w1',
  canceled: false,
  regulationType: 'suppress_with_delete',
  attributes: { userId: 'u1' },
  destinationIds: ['d1'],
  createdAt: '2026-01-01T00:00:00.000Z',
  ...overrides,
});

/** An Amplitude destination: a type that deletes users with one request. */
const amplitude: Destination = {
  id: 'd1',
  name: 'Amplitude',
  type: 'AM',
  config: { apiKey: 'key', apiSecret: 'secret' },
  enabled: true,
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
};

const shifted = (at: string | undefined, ms: number) => at && new Date(Date.parse(at) - ms).toISOString();

/** Deletion jobs kept in memory with the repository's conditions; `elapse` moves every due time and lease into the past. */
function jobStore(regulations: Map<string, Regulation>) {
  const jobs = new Map<string, DeletionJob>();
  const keyOf = (job: DeletionJob) => `${job.workspaceId}#${job.regulationId}#${job.destinationId}`;
  const isDue = (job: DeletionJob, now: string) =>
    ((job.status === 'pending' || job.status === 'failed') && job.dueAt !== undefined && job.dueAt <= now) ||
    (job.status === 'running' && job.leaseUntil !== undefined && job.leaseUntil < now);
  const port: DeletionJobRepository = {
    async createIfAbsent(job) {
      if (jobs.has(keyOf(job))) return false;
      jobs.set(keyOf(job), { ...job });
      return true;
    },
    async list(workspaceId, regulationId) {
      return [...jobs.values()].filter((job) => job.workspaceId === workspaceId && job.regulationId === regulationId).map((job) => ({ ...job }));
    },
    async due(now, limit) {
      return [...jobs.values()]
        .filter((job) => isDue(job, now))
        .slice(0, limit)
        .map((job) => ({ ...job }));
    },
    async claim(job, now, leaseUntil) {
      const stored = jobs.get(keyOf(job));
      if (!stored || regulations.get(job.regulationId)?.canceled !== false || !isDue(stored, now)) return undefined;
      const claimed: DeletionJob = { ...stored, status: 'running', attempts: stored.attempts + 1, leaseUntil, dueAt: undefined, updatedAt: now };
      jobs.set(keyOf(job), claimed);
      return { ...claimed };
    },
    async record(claimed, outcome) {
      const stored = jobs.get(keyOf(claimed));
      if (!stored || stored.status !== 'running' || stored.attempts !== claimed.attempts) return false;
      jobs.set(keyOf(claimed), {
        ...stored,
        status: outcome.status,
        updatedAt: outcome.at,
        leaseUntil: undefined,
        ...(outcome.lastError !== undefined && { lastError: outcome.lastError }),
        ...(outcome.reason !== undefined && { reason: outcome.reason }),
        ...(outcome.dueAt ? { dueAt: outcome.dueAt } : { finishedAt: outcome.at }),
      });
      return true;
    },
    async cancelWaiting(workspaceId, regulationId, at) {
      const waiting = (await port.list(workspaceId, regulationId)).filter((job) => job.status === 'pending' || job.status === 'failed');
      for (const job of waiting) jobs.set(keyOf(job), { ...job, status: 'canceled', updatedAt: at, finishedAt: at, dueAt: undefined });
      return waiting.length;
    },
  };
  const elapse = (ms: number) => {
    for (const [key, job] of jobs) jobs.set(key, { ...job, dueAt: shifted(job.dueAt, ms), leaseUntil: shifted(job.leaseUntil, ms) });
  };
  const only = () => [...jobs.values()][0]!;
  return { port, elapse, only };
}

/** The vendor: answers the requests it is sent with the statuses given, in turn (then 200). */
function vendor(...statuses: number[]) {
  const sent: DestinationRequest[] = [];
  const io: DeletionIO = {
    send: async (request): Promise<DeliveryResult> => {
      sent.push(request);
      const status = statuses.shift() ?? 200;
      return { status, response: status === 200 ? {} : 'try later', retryable: status >= 500 };
    },
  };
  return { io, sent };
}

function setUp(answers: number[], given: Regulation = regulation()) {
  const regulations = new Map([[given.id, given]]);
  const store = jobStore(regulations);
  const vendorSide = vendor(...answers);
  const regulationsPort: Pick<RegulationRepository, 'getRegulation'> = { getRegulation: async (_workspaceId, id) => regulations.get(id) };
  const catalog: Pick<CatalogRepository, 'listDestinations' | 'getDestination'> = {
    listDestinations: async () => [amplitude],
    getDestination: async (_workspaceId, id) => (id === amplitude.id ? amplitude : undefined),
  };
  const runner = new DeletionRunner(regulationsPort, store.port, catalog, POLICY, vendorSide.io);
  return { runner, regulations, store, sent: vendorSide.sent };
}

test('a due job is attempted, and the vendor deleting the user completes it', async () => {
  const { runner, store, sent } = setUp([200]);
  await store.port.createIfAbsent(dueJob(new Date().toISOString()));

  expect(await runner.runDue()).toBe(1);
  expect(sent).toHaveLength(1);
  expect(sent[0]!.endpoint).toMatch(/\/api\/2\/deletions\/users$/);
  expect(store.only()).toMatchObject({ status: 'completed', attempts: 1, finishedAt: expect.any(String) });
  expect(store.only().leaseUntil).toBeUndefined();
  expect(await runner.runDue()).toBe(0);
});

test('a failed attempt waits for its retry, and is attempted again once it is due', async () => {
  const { runner, store, sent } = setUp([503]);
  const before = Date.now();
  await runner.start(regulation());

  const failed = store.only();
  expect(failed).toMatchObject({ status: 'failed', attempts: 1, lastError: 'Amplitude answered 503: try later' });
  expect(Date.parse(failed.dueAt!) - before).toBeGreaterThanOrEqual(POLICY.baseDelayMs);
  expect(await runner.runDue()).toBe(0);
  expect(sent).toHaveLength(1);

  store.elapse(MINUTE);
  expect(await runner.runDue()).toBe(1);
  expect(sent).toHaveLength(2);
  expect(store.only()).toMatchObject({ status: 'completed', attempts: 2 });
});

test('a job that keeps failing is aborted after the last attempt the policy allows', async () => {
  const { runner, store } = setUp([503, 503, 503]);
  await runner.start(regulation());
  for (let attempt = 2; attempt <= POLICY.maxAttempts; attempt++) {
    store.elapse(60 * MINUTE);
    expect(await runner.runDue()).toBe(1);
  }
  expect(store.only()).toMatchObject({ status: 'aborted', attempts: POLICY.maxAttempts, finishedAt: expect.any(String) });
  store.elapse(60 * MINUTE);
  expect(await runner.runDue()).toBe(0);
});

test('a canceled regulation stops the jobs that wait: no attempt reaches the vendor again', async () => {
  const { runner, regulations, store, sent } = setUp([503]);
  const given = regulation();
  await runner.start(given);
  expect(store.only().status).toBe('failed');

  const canceled = { ...given, canceled: true, canceledAt: new Date().toISOString() };
  regulations.set(given.id, canceled);
  expect(await runner.cancel(canceled)).toBe(1);
  expect(store.only()).toMatchObject({ status: 'canceled', finishedAt: expect.any(String) });

  store.elapse(60 * MINUTE);
  expect(await runner.runDue()).toBe(0);
  expect(sent).toHaveLength(1);
});

test('a job due for a regulation canceled meanwhile is not claimed', async () => {
  const { runner, regulations, store, sent } = setUp([]);
  const given = regulation();
  await store.port.createIfAbsent(dueJob(new Date().toISOString()));
  regulations.set(given.id, { ...given, canceled: true });

  expect(await runner.runDue()).toBe(0);
  expect(sent).toHaveLength(0);
  expect(store.only()).toMatchObject({ status: 'pending', attempts: 0 });
});

test('a regulation created canceled gets its job final from the start', async () => {
  const { runner, store, sent } = setUp([]);
  await runner.start(regulation({ canceled: true }));
  expect(store.only()).toMatchObject({ status: 'canceled', attempts: 0, finishedAt: expect.any(String) });
  expect(sent).toHaveLength(0);
});

function dueJob(at: string): DeletionJob {
  const { id: regulationId, workspaceId } = regulation();
  return {
    workspaceId,
    regulationId,
    destinationId: amplitude.id,
    destinationType: amplitude.type,
    status: 'pending',
    attempts: 0,
    dueAt: at,
    createdAt: at,
    updatedAt: at,
  };
}

test("a destination whose secret names a workspace credential deletes with the credential's value, and fails naming a missing one", async () => {
  const named: Destination = { ...amplitude, config: { apiKey: 'key', apiSecret: { credential: 'AMP_SECRET' } } };
  const run = async (values: Record<string, string>) => {
    const regulations = new Map([[regulation().id, regulation()]]);
    const store = jobStore(regulations);
    const vendorSide = vendor();
    const catalog: Pick<CatalogRepository, 'listDestinations' | 'getDestination'> = {
      listDestinations: async () => [named],
      getDestination: async () => named,
    };
    const credentials = { forInvocation: async () => ({ values, secrets: Object.values(values), named: values }) };
    const runner = new DeletionRunner(
      { getRegulation: async (_w, id) => regulations.get(id) },
      store.port,
      catalog,
      POLICY,
      vendorSide.io,
      undefined,
      credentials,
    );
    await runner.start(regulation());
    return { job: store.only(), sent: vendorSide.sent };
  };
  const found = await run({ AMP_SECRET: 'from-the-credential' });
  expect(found.job.status).toBe('completed');
  expect(found.sent[0]!.headers?.Authorization).toBe(`Basic ${Buffer.from('key:from-the-credential').toString('base64')}`);
  const missing = await run({});
  expect(missing.sent).toEqual([]);
  expect(missing.job).toMatchObject({ status: 'aborted', lastError: 'config.apiSecret: names the workspace credential AMP_SECRET, which does not exist' });
});
