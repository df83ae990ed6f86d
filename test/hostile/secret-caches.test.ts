import { generateKeyPairSync } from 'node:crypto';
import { accessToken, clearTokenCache, parseServiceAccountKey } from '../../shared/destinations/google/service-account';
import { deliveryRig } from '../support/delivery-rig';
import { startDestinationServer, type DestinationServer } from '../support/destination-server';
import { CLIENT_EMAIL, serveGoogleTokens, type GoogleTokens } from '../support/google-service-account';
import { holdersIn } from '../support/module-caches';
import { basic, bearer, call } from '../support/runtime';

/**
 * Caches of anything secret, as one tenant aiming at another's sees them: a token, a connection or any other
 * thing made from credentials is kept by workspace and destination and a hash of the key material, so a
 * workspace naming another's service account (or any other identity) with a key of its own is never handed
 * what the other's key obtained. Every cache of shared/ and functions/ is built through TenantCache, or is on
 * the list below with the reason it holds nothing of a tenant's worth keeping apart.
 */

const rig = deliveryRig();
beforeEach(() => clearTokenCache());

/** A service account key of CLIENT_EMAIL that the token endpoint does not know: a key pair of the attacker's own. */
function keyOfTheirOwn(tokenUri: string): string {
  const { privateKey } = generateKeyPairSync('rsa', {
    modulusLength: 2048,
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return JSON.stringify({ type: 'service_account', client_email: CLIENT_EMAIL, private_key: privateKey, token_uri: tokenUri });
}

/** A workspace whose source is connected to a BigQuery Stream destination with `credentials`, its API at `baseUrl`. */
async function warehouse(credentials: string, baseUrl: string) {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  const config = { projectId: 'weir-project', datasetId: 'events', tableId: 'orders', credentials, baseUrl };
  const created = await api('POST', '/v2/destinations', { name: 'warehouse', type: 'BQSTREAM', config });
  expect(created.status).toBe(201);
  await api('POST', '/v2/connections', { sourceId: source.id, destinationId: created.body.destination.id });
  return {
    async send(messageId: string) {
      const batch = [{ type: 'track', userId: 'u1', event: 'Order Completed', messageId, properties: { n: 1 } }];
      expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
      await rig.rt.poller.drain();
    },
    outcomes: async () => (await api('GET', `/v2/destinations/${created.body.destination.id}/outcomes`)).body,
  };
}

const INSERT_ALL = '/bigquery/v2/projects/weir-project/datasets/events/tables/orders/insertAll';

describe("a Google service account's access token", () => {
  let google: GoogleTokens;
  let attacker: DestinationServer;
  beforeEach(async () => {
    google = serveGoogleTokens(rig.server);
    attacker = await startDestinationServer();
  });
  afterEach(() => attacker.close());

  it("is never sent for workspace B that names workspace A's service account with a key of its own and its own API", async () => {
    const a = await warehouse(google.keyText, rig.server.url);
    await a.send('a-1');
    const tokenOfA = rig.server.received.find((r) => r.path === INSERT_ALL)!.headers.authorization;
    expect(tokenOfA).toBe('Bearer ya29.test-1');

    // B names the same e-mail and the same token endpoint (Google's, for everyone), signs with its own key.
    const tokenUri = (JSON.parse(google.keyText) as { token_uri: string }).token_uri;
    const b = await warehouse(keyOfTheirOwn(tokenUri), attacker.url);
    await b.send('b-1');

    expect(attacker.received.map((r) => r.headers.authorization)).not.toContain(tokenOfA);
    expect(attacker.received).toEqual([]);
    expect(google.issued).toHaveLength(1);
    expect(await b.outcomes()).toMatchObject({ delivered: 0, aborted: 1 });
  });

  it('is asked for again by another destination of the same workspace with the same key, and by a changed key', async () => {
    const key = parseServiceAccountKey(google.keyText);
    if (!key.ok) throw new Error(key.error);
    const scope = 'https://www.googleapis.com/auth/bigquery.insertdata';
    const first = { workspaceId: 'ws-a', destinationId: 'dst-1' };

    expect(await accessToken(first, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-1' });
    expect(await accessToken(first, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-1' });
    expect(await accessToken({ ...first, destinationId: 'dst-2' }, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-2' });
    expect(await accessToken({ ...first, workspaceId: 'ws-b' }, key.key, scope)).toEqual({ ok: true, token: 'ya29.test-3' });

    const changed = parseServiceAccountKey(keyOfTheirOwn(key.key.token_uri!));
    if (!changed.ok) throw new Error(changed.error);
    const refused = await accessToken(first, changed.key, scope);
    expect(refused).toMatchObject({ ok: false, result: { status: 400, retryable: false } });
    expect(google.issued.map((t) => t.token)).toEqual(['ya29.test-1', 'ya29.test-2', 'ya29.test-3']);
  });
});

/**
 * What shared/ and functions/ keep between calls outside TenantCache, each with why it holds nothing secret of a
 * tenant that another could reach. Anything new that keeps state in a process goes through TenantCache, or
 * here with its reason (a review reads this list).
 */
const NOT_SECRET: Record<string, string> = {
  // Process machinery: one each per process, nothing of a tenant in it.
  'shared/services.ts:processServices': "the process's composition root",
  'shared/services.ts:Services.made': 'use cases by name, made once per process; no tenant data',
  'shared/composition/delivery.ts:processDelivery': "the process's delivery machinery",
  'shared/persistence/table-client.ts:defaultStore': "the process's DynamoDB client, with the process's own role",
  'shared/ops/metrics.ts:metrics': "the process's metrics emitter",
  'shared/http/client-ip.ts:parsed': 'the trusted-proxy setting parsed from the environment',
  'shared/domain/ids.ts:drawn': 'position in a pool of random bytes for ids',
  'shared/domain/ids.ts:lastMs': 'the last id timestamp (monotonic ids)',
  'shared/domain/ids.ts:sequence': 'the id sequence within a millisecond',
  'shared/domain/user-regex.ts:engine': 'the RE2 module, loaded on first use',
  'shared/destinations/registry.ts:loaded': "each destination type's code, loaded on first use; no tenant data",
  'shared/sandbox/index.ts:pool': "the process's sandbox worker pool",
  'shared/sandbox/pool.ts:SandboxPool.workers': 'the worker threads of the pool',
  'shared/sandbox/worker.ts:chain': "a worker's queue of jobs, one at a time",
  'shared/sandbox/bjson-encode.ts:scratch': 'a scratch buffer, overwritten by each encode',
  'shared/sandbox/bjson-encode.ts:Encoder.atoms': 'atoms of one encode, dropped with it',
  'shared/domain/event-schemas/lossy-counter.ts:scratch': 'a scratch array, overwritten by each call',
  'shared/tenant-cache.ts:TenantCache.entries': 'the helper itself: every key begins with the workspace',
  // Pure memos: the value is a function of the key alone, so an entry tells no one anything they did not pass.
  'shared/destinations/postgres/rows.ts:SNAKE_CASED': 'snake_case of a name: a function of the name',
  'shared/destinations/postgres/rows.ts:COLUMN_NAMES': 'column names of a prefix and key: a function of both',
  'shared/destinations/credential-refs.ts:secretsOf': "a type's secret fields, by its configuration schema: a function of the schema",
  'shared/destinations/credential-refs.ts:storedOf': "a type's stored-configuration schema, by its configuration schema: a function of the schema",
  'shared/domain/event-schemas/flatten.ts:versionCache': 'schema and digest of a key list: a function of the list',
  'shared/domain/event-schemas/flatten.ts:root': 'interned property paths: a path is returned only to whoever passes it',
  'shared/domain/event-schemas/flatten.ts:nodes': 'the count of interned paths (bounds the trie)',
  'shared/sandbox/snapshot-store.ts:SnapshotStore.byKey':
    'module state after evaluation, keyed by a hash of code, libraries and limits; no host call (credentials) ran before capture (snapshots.ts)',
  'shared/sandbox/snapshot-store.ts:SnapshotStore.lastUsed': 'when each snapshot above was used, by the same key',
  'shared/sandbox/snapshot-store.ts:SnapshotStore.loadedOnce': 'snapshot keys loaded once, by the same key',
  'shared/destinations/postgres/connection.ts:USED': 'a WeakSet of connections that ran work: a flag on a connection already held',
  // Objects of one call, one round or one record: dropped with it.
  'shared/domain/delivery/round.ts:DeliveryRound.memo': "one delivery round's reads (of one workspace), dropped with the round",
  'shared/domain/delivery/round.ts:DeliveryRound.held': "one delivery round's held users, dropped with the round",
  'shared/domain/transformations/testing.ts:LibraryResolver.published': "one request's library reads; the resolver is made per workspace and request",
  'shared/domain/tracking-plans/validator.ts:CompiledPlan.specs': 'the specs of one compiled plan version',
  'shared/domain/event-schemas/lossy-counter.ts:LossyCounter.slots': 'counts inside one sketch',
  'shared/domain/event-schemas/sketch.ts:Sketch.keys': 'part of one sketch (one model of one source)',
  'shared/domain/event-schemas/sketch.ts:Sketch.topLevel': 'part of one sketch',
  'shared/domain/event-schemas/sketch.ts:Sketch.arrays': 'part of one sketch',
  'shared/domain/event-schemas/sketch.ts:Sketch.nullable': 'part of one sketch',
  'shared/domain/event-schemas/sketch.ts:Sketch.values': 'part of one sketch',
  // Operational state keyed by ids Weir issued, read only by the code that holds the id; no secret in it.
  'shared/domain/delivery/circuit.ts:Circuit.states': "a destination's failure streak by its id; no configuration",
  'shared/domain/delivery/lanes.ts:DeliveryLanes.lanes': "a destination's queue of work by its id",
  'shared/domain/delivery/batch-delivery.ts:BatchDelivery.running': 'batches running now by batch id (which names the workspace)',
  'shared/domain/delivery/scheduled-delivery.ts:ScheduledDelivery.inLane': 'destination ids with work in their lane',
  'shared/domain/delivery/shard-switch.ts:ShardSwitch.drained': 'workspace#source#change#shard keys found handed over: a yes, no data',
  'shared/domain/ingestion/inbound-limits.ts:InboundLimits.budgets': "a source's rate budget by its id: counts, no data",
  'shared/persistence/counters.ts:errorWrites': 'the counter shard this process sets errors on next: a number, no data',
  // Tenant data kept under a key that begins with the workspace, in a shape TenantCache does not take.
  'shared/domain/event-schemas/capture-service.ts:SchemaCapture.sketches': "sketches by JSON of ['model'|'version', {workspaceId, …}], bounded by bytes",
  'shared/domain/event-schemas/sketch-layout.ts:SketchCache.entries': 'the store of SchemaCapture.sketches above, by the same keys',
  'shared/domain/tracking-plans/validator.ts:CompiledPlans.cache':
    "compiled plan versions by planId#version, reached only through PlanStage, whose key and store read are the workspace's",
  // Found by the credential itself: the workspace is what the lookup finds out.
  'shared/domain/ingestion/write-keys.ts:WriteKeys.cache': 'source by the write key presented: found only by presenting that exact key',
};

describe('what a process keeps between calls', () => {
  const holders = holdersIn('shared', 'functions');

  it('is built through TenantCache (keyed by the workspace first) or is on the list of what holds nothing secret, with its reason', () => {
    const unlisted = holders.filter((h) => !(h.id in NOT_SECRET)).map((h) => `${h.id} (${h.kind})`);
    expect(unlisted).toEqual([]);
  });

  it('lists nothing that no longer exists', () => {
    const ids = new Set(holders.map((h) => h.id));
    expect(Object.keys(NOT_SECRET).filter((id) => !ids.has(id))).toEqual([]);
  });

  it('finds a module-level map of secrets that does not go through TenantCache', () => {
    expect(holdersIn('test/hostile/fixtures')).toEqual([
      { id: 'test/hostile/fixtures/token-map.ts:tokens', kind: 'module' },
      { id: 'test/hostile/fixtures/token-map.ts:Clients.byEmail', kind: 'field' },
      { id: 'test/hostile/fixtures/token-map.ts:client', kind: 'let' },
    ]);
  });
});
