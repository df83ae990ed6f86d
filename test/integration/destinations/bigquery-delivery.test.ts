import { setTimeout as sleep } from 'node:timers/promises';
import { clearTokenCache } from '../../../shared/destinations/google/service-account';
import { deliveryRig } from '../../support/delivery-rig';
import { json, type ReceivedRequest } from '../../support/destination-server';
import { serveGoogleTokens } from '../../support/google-service-account';
import { basic, bearer, call } from '../../support/runtime';
import { oneShard } from '../../support/ingest-items';

/**
 * BigQuery Stream through live delivery: the data plane writes a source's events as insertAll chunks, reads
 * the rows BigQuery names, parks and retries what may go later, and holds back for its Retry-After.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();
beforeEach(() => clearTokenCache());

async function pipeline(table: string) {
  const tokens = serveGoogleTokens(rig.server);
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  const config = { projectId: 'weir-project', datasetId: 'events', tableId: table, credentials: tokens.keyText, baseUrl: rig.server.url };
  const d = (await api('POST', '/v2/destinations', { name: 'warehouse', type: 'BQSTREAM', config })).body.destination;
  await api('POST', '/v2/connections', { sourceId: source.id, destinationId: d.id });
  const path = `/bigquery/v2/projects/weir-project/datasets/events/tables/${table}/insertAll`;
  const send = async (batch: Record<string, unknown>[]) =>
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
  return {
    path,
    send,
    inserts: () => rig.server.received.filter((r) => r.path === path),
    outcomes: async () => (await api('GET', `/v2/destinations/${d.id}/outcomes`)).body,
  };
}

/** Users of one ingest shard: a request of theirs is stored, and delivered, as one batch. */
const user = oneShard('u1');
const track = (n: number, properties: Record<string, unknown> = { n }) => ({
  type: 'track',
  userId: user(`u${n}`),
  event: 'Order Completed',
  messageId: `bq-${n}`,
  properties,
});
const insertIds = (r: ReceivedRequest) => (r.json as { rows: { insertId: string }[] }).rows.map((row) => row.insertId);

it('a request of events becomes one insertAll; the row BigQuery finds invalid is aborted, the stopped ones retried alone', async () => {
  const p = await pipeline('orders');
  let calls = 0;
  rig.server.on(p.path, (req, res) => {
    calls++;
    const first = calls === 1;
    json(
      200,
      first
        ? {
            insertErrors: [
              { index: 1, errors: [{ reason: 'invalid', message: 'no such field: bad' }] },
              { index: 0, errors: [{ reason: 'stopped' }] },
              { index: 2, errors: [{ reason: 'stopped' }] },
            ],
          }
        : {},
    )(req, res);
  });
  await p.send([track(1), track(2, { bad: true }), track(3), { type: 'identify', userId: user('u9'), messageId: 'bq-id', traits: {} }]);
  await rig.rt.poller.drain();

  expect(p.inserts()).toHaveLength(1);
  expect(insertIds(p.inserts()[0]!)).toEqual(['bq-1', 'bq-2', 'bq-3']);
  expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 2, aborted: 2 });

  for (let i = 0; i < 5 && (await p.outcomes()).retrying > 0; i++) {
    await sleep(50);
    await rig.rt.scheduler.runNow();
  }
  expect(await p.outcomes()).toMatchObject({ delivered: 2, retrying: 0, aborted: 2 });
  expect(p.inserts().slice(1).map(insertIds).sort()).toEqual([['bq-1'], ['bq-3']]);
});

it("a 429 with Retry-After parks the chunk's events, and they are not tried again before it", async () => {
  const p = await pipeline('throttled');
  const times: number[] = [];
  rig.server.on(p.path, (req, res) => {
    times.push(Date.now());
    if (times.length > 1) return json(200, {})(req, res);
    res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '4' });
    res.end(JSON.stringify({ error: { code: 429, message: 'Exceeded rate limits', status: 'RESOURCE_EXHAUSTED' } }));
  });
  await p.send([track(1), track(2)]);
  await rig.rt.poller.drain();
  expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 2 });

  // Retries are due after 20 ms by the policy: the scheduler runs within the four seconds asked (how many times
  // depends on the machine's load), and none of the rounds over before then sends.
  let roundsWithin = 0;
  while (Date.now() < times[0]! + 3700) {
    await sleep(50);
    await rig.rt.scheduler.runNow();
    if (Date.now() >= times[0]! + 4000) break;
    expect(times).toHaveLength(1);
    roundsWithin++;
  }
  expect(roundsWithin).toBeGreaterThanOrEqual(1);
  await sleep(Math.max(0, times[0]! + 4000 - Date.now()));
  for (let i = 0; i < 4 && (await p.outcomes()).retrying > 0; i++) {
    await sleep(50);
    await rig.rt.scheduler.runNow();
  }
  expect(times.length).toBeGreaterThan(1);
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(4000);
  expect(await p.outcomes()).toMatchObject({ delivered: 2, retrying: 0 });
});

it("a 403 quota answer (reason rateLimitExceeded) parks the chunk's events, not tried again before its Retry-After, then delivered", async () => {
  const p = await pipeline('quota');
  const times: number[] = [];
  rig.server.on(p.path, (req, res) => {
    times.push(Date.now());
    if (times.length > 1) return json(200, {})(req, res);
    res.writeHead(403, { 'Content-Type': 'application/json', 'Retry-After': '2' });
    const reason = { domain: 'global', reason: 'rateLimitExceeded', message: 'Exceeded rate limits: too many api requests per user per method' };
    res.end(JSON.stringify({ error: { code: 403, message: reason.message, errors: [reason], status: 'PERMISSION_DENIED' } }));
  });
  await p.send([track(1), track(2)]);
  await rig.rt.poller.drain();
  expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 2, aborted: 0 });
  while (Date.now() < times[0]! + 1700) {
    await sleep(100);
    await rig.rt.scheduler.runNow();
  }
  expect(times).toHaveLength(1);
  await sleep(Math.max(0, times[0]! + 2000 - Date.now()));
  for (let i = 0; i < 4 && (await p.outcomes()).retrying > 0; i++) {
    await sleep(50);
    await rig.rt.scheduler.runNow();
  }
  expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(2000);
  expect(await p.outcomes()).toMatchObject({ delivered: 2, retrying: 0, aborted: 0 });
});

it('a 403 that is no quota answer (a permission refused) is final: the events are aborted', async () => {
  const p = await pipeline('denied');
  const reason = { domain: 'global', reason: 'accessDenied', message: 'Access Denied: Table weir-project:events.denied' };
  rig.server.on(p.path, json(403, { error: { code: 403, message: reason.message, errors: [reason], status: 'PERMISSION_DENIED' } }));
  await p.send([track(1)]);
  await rig.rt.poller.drain();
  expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 0, aborted: 1 });
});
