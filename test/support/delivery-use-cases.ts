import type { Destination } from '../../shared/domain/catalog/schemas';
import type { InvocationCredentials } from '../../shared/domain/credentials/credential-service';
import type { Rule } from '../../shared/domain/rules/schemas';
import { BatchDelivery } from '../../shared/domain/delivery/batch-delivery';
import { Circuit } from '../../shared/domain/delivery/circuit';
import { DeliveryLanes } from '../../shared/domain/delivery/lanes';
import { deliveryPolicyFromEnv, type DeliveryPolicy } from '../../shared/domain/delivery/policy';
import { ParkedRetries } from '../../shared/domain/delivery/retries';
import { DeliveryRound } from '../../shared/domain/delivery/round';
import { ScheduledDelivery } from '../../shared/domain/delivery/scheduled-delivery';
import { StreamDelivery } from '../../shared/domain/delivery/stream-delivery';
import type { BatchGuard } from '../../shared/domain/delivery/records';
import type { IngestPart } from '../../shared/domain/ingestion/records';
import { SuppressionIndex } from '../../shared/domain/regulations/suppression-index';
import { DuplicateFilter } from '../../shared/domain/ingestion/duplicates';
import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import { FakeDeliveries, FakeParkedDeliveries, fakeCatalog, type FakeDeliveryStore } from './delivery-fakes';
import { startDestinationServer, type DestinationServer } from './destination-server';

/**
 * A local HTTP destination for a file's tests, there once they run: requests to 127.0.0.1 allowed and `env` set
 * while the file runs, its requests cleared before each test, closed after the file.
 */
export function localDestination(env: Record<string, string> = {}): DestinationServer {
  const server = {} as DestinationServer;
  const settings = { [OUTBOUND_ALLOWLIST_ENV]: '127.0.0.1', ...env };
  beforeAll(async () => {
    Object.assign(process.env, settings);
    Object.assign(server, await startDestinationServer());
  });
  afterAll(async () => {
    for (const name of Object.keys(settings)) delete process.env[name];
    await server.close();
  });
  beforeEach(() => (server.received.length = 0));
  return server;
}

export const WORKSPACE = 'ws-1';
export const SOURCE = 'src-1';

/** Short waits: retries due within milliseconds, leases that run out within a test. */
export const testPolicy = (overrides: Partial<DeliveryPolicy> = {}): DeliveryPolicy => ({
  ...deliveryPolicyFromEnv({}),
  baseDelayMs: 5,
  maxDelayMs: 40,
  configCacheMs: 0,
  ...overrides,
});

export const webhook = (id: string, url: string): Destination => {
  const at = new Date().toISOString();
  return { id, name: id, type: 'WEBHOOK', config: { webhookUrl: url }, enabled: true, createdAt: at, updatedAt: at };
};

/** One stored part of `count` track events, each of the user `userOf(i)`. */
export function partOf(requestId: string, count: number, userOf: (i: number) => string = (i) => `user-${i}`): IngestPart {
  const events = Array.from({ length: count }, (_, i) => ({ messageId: `m-${i}`, type: 'track', event: 'Clicked', userId: userOf(i) }));
  return { workspaceId: WORKSPACE, sourceId: SOURCE, requestId, part: 0, events };
}

/**
 * The delivery use cases of one process, over fakes of their ports: a process that dies is one whose use
 * cases are dropped, and the next is built over the same store.
 */
export function deliveryOver(
  store: FakeDeliveryStore,
  destinations: Destination[],
  policy: DeliveryPolicy,
  options: { suppressed?: Set<string>; parts?: IngestPart[]; rules?: Record<string, Rule[]>; credentials?: InvocationCredentials } = {},
) {
  const deliveries = new FakeDeliveries(store);
  const parked = new FakeParkedDeliveries(store);
  const catalog = fakeCatalog(SOURCE, destinations, options.rules);
  const suppressed = options.suppressed ?? new Set<string>();
  let stamp = 0;
  const suppression = new SuppressionIndex({
    suppressionsOf: async (_workspaceId, userIds) => new Map(userIds.filter((id) => suppressed.has(id)).map((id) => [id, ['*' as const]])),
    // A stamp that moves at every read: the set may change between any two batches.
    suppressionStamp: async () => ++stamp,
  });
  const counted = { suppressed: 0 };
  const ingest = {
    countSuppressed: async (_workspaceId: string, _sourceId: string, count: number) => void (counted.suppressed += count),
    readPart: async (_workspaceId: string, _sourceId: string, requestId: string, part: number) =>
      options.parts?.find((p) => p.requestId === requestId && p.part === part)?.events,
  };
  const lanes = new DeliveryLanes(
    () => policy.laneWaitMs,
    () => policy.laneMaxWaitMs,
  );
  const circuit = new Circuit(() => policy.circuitOpenMs);
  const code = { listHeads: async () => [], getHead: async () => undefined, getRevision: async () => undefined };
  const credentials = { forInvocation: async () => options.credentials ?? { values: {}, secrets: [], named: {} } };
  const round = () => new DeliveryRound(code, credentials, parked, catalog);
  const batches = new BatchDelivery(deliveries, lanes, circuit, policy);
  return {
    deliveries,
    counted,
    lanes,
    stream: new StreamDelivery(catalog, ingest, deliveries, suppression, batches, round, lanes, circuit, policy),
    scheduler: new ScheduledDelivery(
      catalog,
      ingest,
      deliveries,
      suppression,
      batches,
      new ParkedRetries(catalog, parked, circuit, policy, credentials),
      round,
      lanes,
      // These use cases' parts share messageIds (partOf): de-duplication is tested over the real index elsewhere.
      new DuplicateFilter({ claim: async (claims) => claims.map(() => ({})) }, async () => undefined),
    ),
  };
}

/**
 * Has `after` run each time a batch write of the process `d` went through, given the write's guard and how many
 * have gone through so far: it may throw there, as a process whose run ends after a write it made.
 */
export function afterEachWrite(d: ReturnType<typeof deliveryOver>, after: (guard: BatchGuard, writes: number) => void) {
  const writeBatch = d.deliveries.writeBatch.bind(d.deliveries);
  let writes = 0;
  d.deliveries.writeBatch = async (guard, change) => {
    const written = await writeBatch(guard, change);
    after(guard, ++writes);
    return written;
  };
}
