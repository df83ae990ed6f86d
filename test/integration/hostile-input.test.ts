import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ENDPOINT_FUNCTIONS } from '../../shared/contract/functions';
import { ROUTES, routeKey, type RouteDefinition } from '../../shared/contract/routes';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { shutdownSandbox } from '../../shared/sandbox';
import { deepArray, hostileCases, nested, withRaw, HUGE_ASCII, HUGE_EMOJI, QUOTES, type BodySample, type HostileCase } from '../support/hostile-inputs';
import { ADMIN, basic, bearer, call, startTestRuntime, type Answer, type TestRuntime } from '../support/runtime';

/**
 * Every route of the manifest gets bad inputs generated for what it reads (path, query, body, credentials):
 * deep nesting, huge and quoted strings in ids and credentials, wrong types, lying gzip, lone surrogates.
 * Each must answer a 4xx error (JSON on the control plane, the data plane's own text or JSON) and store
 * nothing; never a 5xx.
 */
let rt: TestRuntime;
let ws: WorkspaceCredentials;
const ids: Record<string, string> = {};

beforeAll(async () => {
  rt = await startTestRuntime();
  ws = await rt.newWorkspace();
  const api = async (method: string, path: string, body: unknown, auth = bearer(ws.token)) => {
    const answer = await call(rt.controlUrl, method, path, { auth, body });
    expect(answer.status).toBeLessThan(300);
    return answer.body;
  };
  const source = (await api('POST', '/v2/sources', { name: 'Site' })).source;
  Object.assign(ids, { source: source.id, writeKey: source.writeKey });
  ids.destination = (await api('POST', '/v2/destinations', { name: 'Hook', type: 'WEBHOOK', config: { webhookUrl: 'https://example.com/h' } })).destination.id;
  ids.connection = (await api('POST', '/v2/connections', { sourceId: ids.source, destinationId: ids.destination })).connection.id;
  const account = basic(ws.email, ws.token);
  const transformation = await api('POST', '/transformations', { name: 'T', code: 'export function transformEvent(e) { return e; }' }, account);
  Object.assign(ids, { transformation: transformation.id, transformationVersion: transformation.versionId });
  const library = await api('POST', '/libraries', { name: 'Helpers', code: 'export const one = 1;' }, account);
  Object.assign(ids, { library: library.id, libraryVersion: library.versionId });
  const regulation = await call(rt.controlUrl, 'POST', '/v2/regulations', {
    auth: bearer(ws.token),
    body: { regulationType: 'suppress', users: [{ userId: 'u0' }] },
    headers: { Accept: 'application/json' },
  });
  ids.regulation = regulation.body[0].id;
  ids.trackingPlan = (await api('POST', '/v2/tracking-plans', { name: 'Plan', specs: [{ type: 'identify', schema: { type: 'object' } }] })).trackingPlan.id;
  await api('PUT', '/credentials/API_KEY', { value: 'a-secret-of-the-hostile-input-test', isSecret: true }, account);
  await rt.poller.drain();
}, 60_000);
afterAll(async () => {
  await rt.stop();
  await shutdownSandbox();
});

const EVENT = { type: 'track', event: 'Signed Up', userId: 'u1', messageId: 'm1', properties: { plan: 'pro' } };
const MESSAGE = { type: 'track', event: 'Signed Up', userId: 'u1' };

/** A good body per route that reads one; the test refuses a route with a body but no sample here. */
const SAMPLES: Record<string, BodySample> = {
  'POST /v2/sources': { body: { name: 'S', type: 'HTTP', enabled: true }, extra: [{ name: 'S\ud800' }] },
  'PATCH /v2/sources/{id}': { body: { name: 'S2', enabled: false } },
  'POST /v2/destinations/{id}/failures/retry': { body: { from: '2026-11-26T10:00:00Z', to: '2026-11-26T11:00:00Z', reason: 'http4xx' } },
  'POST /v2/destinations': { body: { name: 'D', type: 'WEBHOOK', config: { webhookUrl: 'https://example.com/d' } } },
  'PATCH /v2/destinations/{id}': { body: { name: 'D2', config: { webhookUrl: 'https://example.com/d2' } } },
  'POST /v2/connections': { body: { sourceId: 'SOURCE', destinationId: 'DESTINATION' } },
  'POST /v2/tracking-plans': { body: { name: 'P', specs: [{ type: 'track', name: 'E', schema: { type: 'object', required: ['a'] } }] } },
  'PUT /v2/tracking-plans/{id}': { body: { name: 'P2', specs: [{ type: 'page', schema: { type: 'object' } }] } },
  'PUT /v2/sources/{id}/tracking-plan': { body: { planId: 'TRACKINGPLAN', mode: 'drop-event', unplannedEvents: 'drop' } },
  'PUT /v2/connections/{id}/rules': {
    body: { rules: [{ type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: '^Debug' }] }, { type: 'truncate-ip' }] },
    extra: [
      { rules: [{ type: 'drop-if', conditions: [{ path: 'event', op: 'matches', pattern: '(x+)\\1y' }] }] },
      { rules: [{ type: 'hash', paths: ['a.__proto__.b'] }] },
    ],
  },
  'POST /v2/connections/{id}/rules/dry-run': { body: { limit: 10, rules: [{ type: 'sample', fraction: 0.5 }] }, extra: [{ limit: 1e9 }] },
  'POST /v2/regulations': {
    body: { regulationType: 'suppress', sourceIds: ['SOURCE'], users: [{ userId: 'u9', email: 'u9@example.com' }] },
    extra: [
      { regulationType: 'suppress_with_delete', users: [{ userId: HUGE_ASCII.slice(0, 1001) }] },
      { regulationType: 'suppress', users: [{ userId: 'u\udc00' }] },
    ],
    headers: [{ 'Idempotency-Key': HUGE_ASCII }, { 'Idempotency-Key': QUOTES }],
  },
  'POST /v2/alert-rules': {
    body: {
      name: 'A',
      condition: { kind: 'destination-success-rate', destinationId: 'DESTINATION', belowPercent: 90, minutes: 5, minAttempts: 10 },
      channel: { type: 'webhook', url: 'https://example.com/alerts' },
    },
  },
  'PATCH /v2/alert-rules/{id}': { body: { name: 'B', enabled: false } },
  'POST /v2/replays': {
    body: {
      sourceId: 'SOURCE',
      destinationId: 'DESTINATION',
      from: new Date(Date.now() - 3_600_000).toISOString(),
      to: new Date(Date.now() - 1000).toISOString(),
    },
  },
  'POST /transformations': { body: { name: 'T2', description: 'd', code: 'export function transformEvent(e) { return e; }' } },
  'POST /transformations/{id}': { body: { description: 'd2', code: 'export function transformEvent(e) { return null; }' } },
  'POST /libraries': { body: { name: 'L2', code: 'export const two = 2;' } },
  'POST /libraries/{id}': { body: { description: 'd2', code: 'export const three = 3;' } },
  'POST /transformations/libraries/publish': { body: { transformations: [{ versionId: 'TVERSION', testInput: [MESSAGE] }] } },
  'POST /transformations/libraries/test': { body: { transformations: [{ versionId: 'TVERSION', testInput: [MESSAGE] }] } },
  'POST /transformations/publish': {
    body: { transformations: [{ versionId: 'TVERSION', testSuite: [{ id: 't1', name: 'n', input: [MESSAGE] }] }] },
  },
  'POST /transformations/tests/run': {
    body: { transformations: [{ versionId: 'TVERSION', testSuite: [{ id: 't1', name: 'n', input: [MESSAGE] }] }] },
  },
  'PUT /credentials/{key}': { body: { value: 'v2', isSecret: false }, extra: [{ value: '\ud83d', isSecret: false }] },
  'POST /v0/testDestination/{destination_id}': {
    body: { stage: { dest_transform: true }, message: MESSAGE, destinationConfig: { webhookMethod: 'PUT' } },
    extra: [
      { message: { ...MESSAGE, properties: { name: '\udc00' } } },
      { message: { ...MESSAGE, anonymousId: HUGE_ASCII } },
      { message: { ...MESSAGE, userId: { toString: 'x', valueOf: 'y' } } },
    ],
  },
  'POST /v0/testSource/{source_id}': { body: { stage: { dest_transform: true }, message: MESSAGE } },
  'POST /admin/audit': {
    body: { messageIds: ['m-1', 'm-2'] },
    extra: [{ messageIds: [] }, { messageIds: [HUGE_ASCII.slice(0, 1001)] }, { messageIds: Array.from({ length: 101 }, (_, i) => `m-${i}`) }],
  },
  'POST /beacon/v1/batch': { body: { batch: [EVENT], sentAt: '2026-01-01T00:00:00.000Z' }, wrongTypes: { batch: { not: 'an array' } } },
  'POST /v1/{type}': {
    body: { batch: [EVENT], sentAt: '2026-01-01T00:00:00.000Z' },
    wrongTypes: { batch: { not: 'an array' } },
    extra: [
      { batch: [{ ...EVENT, properties: nested(40) }] },
      withRaw({ batch: [{ ...EVENT, properties: '__RAW__' }] }, deepArray),
      { batch: [{ ...EVENT, anonymousId: HUGE_ASCII.slice(0, 2000) }] },
      { batch: [EVENT, { ...EVENT, type: 42 }] },
      { batch: [{ ...EVENT, userId: { id: 'u' } }] },
      { batch: [{ ...EVENT, anonymousId: 'a1', userId: { toString: 'x' } }] },
      { batch: [{ ...EVENT, properties: { name: 'cut \ud83d' } }] },
    ],
  },
};

/** Where the reference answers 200 for any id, so do we: the empty answer it gives (event-schemas.md §7). */
function acceptedAs(route: RouteDefinition, hostile: HostileCase): unknown {
  const key = routeKey(route);
  // A percent-encoding that decodes to no text is no id at all: the gateway refuses the path before any route.
  if (key === 'GET /schemas/event-model/{EventID}/key-counts' && hostile.name.startsWith('path EventID') && !hostile.name.includes('lone surrogate')) return {};
  if (key === 'GET /schemas/event-models' && hostile.name.startsWith('query ')) return [];
  if (key === 'GET /schemas/event-versions' && hostile.name.startsWith('query EventID')) return [];
  return undefined;
}

function pathOf(route: RouteDefinition): Record<string, string> {
  const area = route.path.split('/').find((s) => s && s !== 'v2') ?? '';
  const byName: Record<string, string> = {
    id:
      {
        sources: ids.source,
        destinations: ids.destination,
        connections: ids.connection,
        regulations: ids.regulation,
        transformations: ids.transformation,
        libraries: ids.library,
        'tracking-plans': ids.trackingPlan,
      }[area] ?? 'none',
    version: '1',
    versionId: area === 'libraries' ? ids.libraryVersion! : ids.transformationVersion!,
    key: 'API_KEY',
    destination_id: ids.destination!,
    source_id: ids.source!,
    type: route.responseType === 'gif' ? 'track' : 'batch',
    writeKey: ids.writeKey!,
    EventID: randomUUID(),
    VersionID: randomUUID(),
  };
  return Object.fromEntries([...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => [name!, byName[name!]!]));
}

function goodAuth(route: RouteDefinition): string | undefined {
  if (route.auth === 'account') return basic(ws.email, ws.token);
  if (route.auth === 'bearer') return bearer(ws.token);
  if (route.auth === 'admin') return basic(ADMIN.user, ADMIN.password);
  return route.handlerAuth === 'writeKey' ? basic(ids.writeKey!, '') : undefined;
}

/** The ids a sample names, filled in. */
const filled = (sample: BodySample | undefined): BodySample | undefined => {
  if (!sample) return undefined;
  const text = JSON.stringify(sample.body)
    .replaceAll('"SOURCE"', JSON.stringify(ids.source))
    .replaceAll('"DESTINATION"', JSON.stringify(ids.destination))
    .replaceAll('"TRACKINGPLAN"', JSON.stringify(ids.trackingPlan))
    .replaceAll('"TVERSION"', JSON.stringify(ids.transformationVersion));
  return { ...sample, body: JSON.parse(text) };
};

async function snapshot(): Promise<string> {
  const { Items = [] } = await rt.store.doc.send(new ScanCommand({ TableName: rt.store.table, ConsistentRead: true }));
  return JSON.stringify(Items.sort((x, y) => `${x.pk}${x.sk}`.localeCompare(`${y.pk}${y.sk}`)));
}

/** What is wrong with an answer to a hostile request, or undefined when it is right. */
function problemWith(answer: Answer, route: RouteDefinition, accepted: unknown): string | undefined {
  const plane = ENDPOINT_FUNCTIONS[route.fn].plane;
  const seen = `${answer.status} ${answer.text.slice(0, 160)}`;
  if (accepted !== undefined)
    return answer.status === 200 && isDeepStrictEqual(answer.body, accepted) ? undefined : `expected 200 ${JSON.stringify(accepted)}, got ${seen}`;
  if (answer.status < 400 || answer.status >= 500) return `expected a 4xx, got ${seen}`;
  const type = answer.headers.get('content-type') ?? '';
  const body = answer.body as { error?: unknown; message?: unknown } | string;
  const jsonError =
    type.startsWith('application/json') && typeof body === 'object' && typeof (body.error ?? (plane === 'data' ? body.message : undefined)) === 'string';
  const textError = plane === 'data' && type.startsWith('text/plain') && answer.text.trim() !== '';
  // A pixel answers an image whatever happens, its refusal's reason in a header.
  const gifError = route.responseType === 'gif' && type === 'image/gif' && Boolean(answer.headers.get('x-weir-error'));
  return jsonError || textError || gifError ? undefined : `not an error body (${type}): ${seen}`;
}

/** Routes that check credentials (a write key named in the path is checked as a path parameter). */
const checksAuth = (route: RouteDefinition) => route.auth !== 'none' || (route.handlerAuth === 'writeKey' && !route.path.includes('{writeKey}'));
/** Every route that reads anything from the request (the others, such as /health, have nothing to refuse). */
const routes = (ROUTES as readonly RouteDefinition[])
  .filter((route) => route.params || route.query || route.body || checksAuth(route))
  .map((route) => [routeKey(route), ENDPOINT_FUNCTIONS[route.fn].plane, route] as const);

describe('every route refuses hostile input with a 4xx and stores nothing', () => {
  it('has a sample body for every route that reads one, and leaves out only routes that read nothing', () => {
    expect(routes.filter(([key, , route]) => route.body && !SAMPLES[key]).map(([key]) => key)).toEqual([]);
    expect(ROUTES.length - routes.length).toBe(ROUTES.filter((r) => r.auth === 'none' && !('handlerAuth' in r) && !('params' in r)).length);
  });

  it('answers 401 to a write key of 10 KB, of emoji or of quotes and SQL given in the body, storing nothing', async () => {
    const before = await snapshot();
    for (const writeKey of [HUGE_ASCII, HUGE_EMOJI, QUOTES]) {
      const answer = await call(rt.dataUrl, 'POST', '/v1/batch', { body: { batch: [EVENT], writeKey } });
      expect([answer.status, answer.text]).toEqual([401, 'Invalid write key']);
    }
    expect(await snapshot()).toBe(before);
  });

  it.each(routes)(
    '%s (%s plane)',
    async (key, plane, route) => {
      const base = plane === 'control' ? rt.controlUrl : rt.dataUrl;
      const cases = hostileCases(route, pathOf(route), filled(SAMPLES[key]), checksAuth(route));
      const before = await snapshot();
      const problems: string[] = [];
      for (const hostile of cases) {
        const url = route.path.replace(/\{(\w+)\}/g, (_, name: string) => hostile.path[name]!) + (hostile.query ? `?${hostile.query}` : '');
        const headers: Record<string, string> = hostile.body !== undefined ? { 'Content-Type': 'application/json' } : {};
        const answer = await call(base, route.method, url, {
          auth: hostile.auth ?? goodAuth(route),
          rawBody: hostile.body,
          headers: { ...headers, ...hostile.headers },
        });
        const problem = problemWith(answer, route, acceptedAs(route, hostile));
        if (problem) problems.push(`${hostile.name}: ${problem}`);
      }
      expect(problems).toEqual([]);
      expect(cases.length).toBeGreaterThan(0);
      await rt.poller.drain();
      expect(await snapshot()).toBe(before);
    },
    180_000,
  );
});
