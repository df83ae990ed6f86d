import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { freePort } from '../../infra/local/dynamodb-local';
import { DESTINATION_TIMEOUT_ENV, DESTINATION_TIMEOUT_MS } from '../../shared/destinations/http-client';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import { queryAll } from '../../shared/persistence/table-client';
import { FAILURE_STREAK } from '../../shared/domain/delivery/circuit';
import { recordedBeforeDying } from '../support/batch-changes';
import { deliveryRig, flowThrough, webhooksPipeline } from '../support/delivery-rig';
import { deliveryHandler, streamRecordOf } from '../support/stream-records';
import { json, silent } from '../support/destination-server';
import { startRedisServer } from '../support/redis-server';
import { basic, bearer, call } from '../support/runtime';
import { ingestItems, oneShard } from '../support/ingest-items';
import { waitFor } from '../support/wait';

/** Live delivery: ingest → stream → transformation → destination transform → send, with retries parked. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_RETRY_WINDOW_MS = '150';
const rig = deliveryRig();
afterEach(() => {
  delete process.env.WEIR_DELIVERY_CIRCUIT_OPEN_MS;
  process.env[DESTINATION_TIMEOUT_ENV] = String(DESTINATION_TIMEOUT_MS);
});

const pipeline = (...paths: string[]) => webhooksPipeline(rig, ...paths);
const flow = (rounds = 1) => flowThrough(rig, rounds);
const at = (path: string) => rig.server.received.filter((r) => r.path === path);

describe('delivery', () => {
  it('delivers track and identify events once each, and counts them', async () => {
    const p = await pipeline('/a');
    expect((await p.track({ userId: 'u1', event: 'Signed Up', messageId: 'm-1' })).status).toBe(200);
    expect((await p.track({ userId: 'u1', traits: { email: 'a@x.io' }, messageId: 'm-2' }, 'identify')).status).toBe(200);
    await flow();
    expect(at('/a').map((r) => [(r.json as { type: string }).type, (r.json as { messageId: string }).messageId])).toEqual([
      ['track', 'm-1'],
      ['identify', 'm-2'],
    ]);
    expect(await p.outcomes()).toEqual({
      destinationId: p.destinations[0],
      delivered: 2,
      retrying: 0,
      aborted: 0,
      filtered: 0,
      filteredByRule: [],
      suppressed: 0,
      lastErrors: [],
      updatedAt: expect.any(String),
    });
  });

  it('applies the published transformation live, and a later publish to the events after it', async () => {
    const p = await pipeline('/t');
    const id = await p.publish('export function transformEvent(e) { return { ...e, v: 1 }; }');
    await p.track({ userId: 'u', event: 'first' });
    await flow();
    await call(rig.rt.controlUrl, 'POST', `/transformations/${id}?publish=true`, {
      auth: basic(p.ws.email, p.ws.token),
      body: { code: 'export function transformEvent(e) { if (e.event === "drop") return null; return { ...e, v: 2 }; }' },
    });
    await p.batch([
      { type: 'track', userId: 'u', event: 'second' },
      { type: 'track', userId: 'u', event: 'drop' },
    ]);
    await flow();
    expect(at('/t').map((r) => [(r.json as { event: string }).event, (r.json as { v: number }).v])).toEqual([
      ['first', 1],
      ['second', 2],
    ]);
    expect(await p.outcomes()).toMatchObject({ delivered: 2, filtered: 1 });
  });

  it('parks a 500 and delivers on the 200 that follows, once; a 400 is not retried', async () => {
    const p = await pipeline('/flaky', '/refusing');
    let calls = 0;
    rig.server.on('/flaky', (req, res) => json(++calls === 1 ? 500 : 200, {})(req, res));
    rig.server.on('/refusing', json(400, { error: 'bad field' }));
    await p.track({ userId: 'u', event: 'once', messageId: 'm-once' });
    await rig.rt.poller.drain();
    expect(await p.outcomes(0)).toMatchObject({ delivered: 0, retrying: 1 });
    await flow(3);
    expect(at('/flaky').map((r) => (r.json as { messageId: string }).messageId)).toEqual(['m-once', 'm-once']);
    expect(await p.outcomes(0)).toMatchObject({ delivered: 1, retrying: 0, aborted: 0 });
    expect(at('/refusing')).toHaveLength(1);
    expect(await p.outcomes(1)).toMatchObject({
      delivered: 0,
      retrying: 0,
      aborted: 1,
      lastErrors: [{ at: expect.any(String), messageId: 'm-once', status: 400, error: 'destination answered 400: {"error":"bad field"}' }],
    });
  });

  it("aborts a dead destination's events after the bounded retries, without holding up another destination", async () => {
    const p = await pipeline('/dead', '/alive');
    rig.server.on('/dead', json(503, {}));
    await p.batch([1, 2, 3].map((n) => ({ type: 'track', userId: `u${n}`, event: `e${n}` })));
    await rig.rt.poller.drain();
    expect(at('/alive')).toHaveLength(3);
    // Answered failures open the circuit only after a streak: each event was sent once.
    expect(at('/dead')).toHaveLength(3);
    expect(await p.outcomes(0)).toMatchObject({ delivered: 0, retrying: 3, aborted: 0 });
    await flow(8);
    const outcome = await p.outcomes(0);
    expect(outcome).toMatchObject({ delivered: 0, retrying: 0, aborted: 3 });
    expect(outcome.lastErrors[0].error).toMatch(/503/);
    const sends = (event: string) => at('/dead').filter((r) => (r.json as { event: string }).event === event).length;
    expect([sends('e1') >= 2, sends('e2') >= 2, sends('e3') >= 2]).toEqual([true, true, true]);
  });

  it('opens the circuit after a streak of failures, and sends nothing while it is open', async () => {
    process.env.WEIR_DELIVERY_CIRCUIT_OPEN_MS = '60000';
    const p = await pipeline('/down');
    rig.server.on('/down', json(503, {}));
    await p.batch([1, 2, 3, 4, 5, 6, 7, 8].map((n) => ({ type: 'track', userId: `u${n}`, event: `e${n}` })));
    await rig.rt.poller.drain();
    expect(at('/down')).toHaveLength(FAILURE_STREAK);
    expect(await p.outcomes()).toMatchObject({ retrying: 8 });
    await sleep(40);
    await rig.rt.scheduler.runNow();
    // Due retries met an open circuit: not sent, and not counted as attempts.
    expect(at('/down')).toHaveLength(FAILURE_STREAK);
    expect((await p.outcomes()).retrying).toBe(8);
  });

  it('keeps sending to a destination that fails some requests, and counts each event once', async () => {
    const p = await pipeline('/flapping');
    // Every other event fails its first attempt.
    const seen = new Set<string>();
    rig.server.on('/flapping', (req, res) => {
      const id = (req.json as { messageId: string }).messageId;
      const first = !seen.has(id);
      seen.add(id);
      json(first && Number(id.split('-')[1]) % 2 === 1 ? 503 : 200, {})(req, res);
    });
    await p.batch(Array.from({ length: 12 }, (_, n) => ({ type: 'track', userId: `u${n}`, event: `e${n}`, messageId: `flap-${n}` })));
    await rig.rt.poller.drain();
    // Every event went out on the first pass: one 503 in two never makes a streak.
    expect(new Set(at('/flapping').map((r) => (r.json as { messageId: string }).messageId)).size).toBe(12);
    expect(await p.outcomes()).toMatchObject({ delivered: 6, retrying: 6 });
    await flow(3);
    expect(at('/flapping')).toHaveLength(18);
    expect(await p.outcomes()).toMatchObject({ delivered: 12, retrying: 0, aborted: 0 });
  });

  it("opens the circuit on a time-out at once, and a hanging destination's socket holds up no other destination", async () => {
    process.env.WEIR_DELIVERY_CIRCUIT_OPEN_MS = '60000';
    // Long enough that the healthy deliveries are surely done while the hanging request is still open, also on a
    // loaded machine (the drain below waits it out).
    process.env[DESTINATION_TIMEOUT_ENV] = '15000';
    const p = await pipeline('/hanging', '/healthy');
    const other = await pipeline('/healthy-other');
    rig.server.on('/hanging', silent);
    await p.batch([1, 2, 3].map((n) => ({ type: 'track', userId: `u${n}`, event: `e${n}` })));
    await other.batch([1, 2].map((n) => ({ type: 'track', userId: 'v', event: `o${n}` })));
    // Both healthy destinations have all their events while the hanging one still holds its first request.
    await waitFor(
      'the healthy destinations to have their events',
      () => [at('/healthy').length, at('/healthy-other').length],
      ([a, b]) => a! >= 3 && b! >= 2,
      { everyMs: 10 },
    );
    expect([at('/healthy').length, at('/healthy-other').length, at('/hanging').length]).toEqual([3, 2, 1]);
    expect(rig.server.pending()).toBe(1);
    await rig.rt.poller.drain();
    // The time-out opened the circuit: the rest of the batch was parked unsent.
    expect(at('/hanging')).toHaveLength(1);
    expect(await p.outcomes(0)).toMatchObject({ delivered: 0, retrying: 3 });
    expect(await p.outcomes(1)).toMatchObject({ delivered: 3, retrying: 0 });
  });

  it('parks, retries and shows an event nested as deep as ingestion accepts', async () => {
    const p = await pipeline('/deep');
    let calls = 0;
    rig.server.on('/deep', (req, res) => json(++calls === 1 ? 503 : 200, {})(req, res));
    let properties: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < 26; i++) properties = { nested: properties };
    expect((await p.batch([{ type: 'track', userId: 'u', event: 'Deep', messageId: 'deep-1', properties }])).status).toBe(200);
    await rig.rt.poller.drain();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 1 });
    await flow(3);
    expect(at('/deep').map((r) => (r.json as { messageId: string }).messageId)).toEqual(['deep-1', 'deep-1']);
    expect(await p.outcomes()).toMatchObject({ delivered: 1, retrying: 0, aborted: 0 });
    const sent = await p.api('GET', `/v2/destinations/${p.destinations[0]}/live-events`);
    expect(sent.body.events[0]).toMatchObject({ messageId: 'deep-1', outcome: 'retrying', status: 503 });
  });

  it('sends nothing twice when a stream record is delivered again', async () => {
    const p = await pipeline('/dup');
    await p.batch([
      { type: 'track', userId: 'u', event: 'a' },
      { type: 'track', userId: 'u', event: 'b' },
    ]);
    await flow();
    expect(at('/dup')).toHaveLength(2);
    const [item] = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    const record = streamRecordOf(item!, 'x');
    expect(await deliveryHandler()({ Records: [record, record] })).toEqual({ batchItemFailures: [] });
    await flow();
    expect(at('/dup')).toHaveLength(2);
    // Handled, not parked: the record came twice in one batch, and was read once.
    expect(
      await queryAll(rig.rt.store, {
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.parkedRecord(p.ws.workspaceId, 'delivery', 'x').pk },
      }),
    ).toEqual([]);
  });

  it('resumes an interrupted batch after its last recorded event when the lease runs out', async () => {
    const p = await pipeline(); // no connection: the stream consumer leaves this batch alone
    await p.batch([1, 2, 3, 4].map((n) => ({ type: 'track', userId: 'u', event: `e${n}` })));
    await rig.rt.poller.drain();
    const destination = (await p.api('POST', '/v2/destinations', { name: 'r', type: 'WEBHOOK', config: { webhookUrl: `${rig.server.url}/resume` } })).body
      .destination.id;
    const { parts } = await new IngestRepository(rig.rt.store).recent(p.ws.workspaceId, p.source.id, 1);
    const ref = {
      workspaceId: p.ws.workspaceId,
      sourceId: p.source.id,
      destinationId: destination,
      requestId: parts[0]!.requestId,
      part: parts[0]!.part!,
    };
    // A consumer took the batch, moved on (holding it), recorded two events, and died; its lease runs out 1.5 s later.
    const deliveries = new DeliveryRepository(rig.rt.store);
    const leaseEnds = new Date(Date.now() + 1500).toISOString();
    expect(await deliveries.readBatch(ref)).toEqual({ kind: 'absent' });
    expect(await recordedBeforeDying(deliveries, ref, 'dead-owner', 2, leaseEnds)).toMatchObject({ established: true });
    // In the scheduler's index at its lease, as a stop leaves a claim (or the stream a batch it stops waiting for).
    expect(await deliveries.releaseBatch(ref, 'dead-owner', leaseEnds)).toBe(true);
    await rig.rt.scheduler.runNow();
    expect(at('/resume')).toEqual([]);
    await sleep(Date.parse(leaseEnds) - Date.now() + 20);
    await rig.rt.scheduler.runNow();
    expect(at('/resume').map((r) => (r.json as { event: string }).event)).toEqual(['e3', 'e4']);
    await rig.rt.scheduler.runNow();
    expect(at('/resume')).toHaveLength(2);
  });
});

describe('server-delivered types', () => {
  it("keep an identify's traits in Redis as the hash user:<userId>, and abort an S3 destination's events, with a clear error, when it names no credentials", async () => {
    const server = await startRedisServer();
    const data = new Redis({ host: server.host, port: server.port, lazyConnect: true });
    try {
      await data.connect();
      const p = await pipeline();
      const create = async (body: Record<string, unknown>) => {
        const d = (await p.api('POST', '/v2/destinations', body)).body.destination;
        await p.api('POST', '/v2/connections', { sourceId: p.source.id, destinationId: d.id });
        return d.id as string;
      };
      const cache = await create({ name: 'cache', type: 'REDIS', config: { address: server.address, prefix: 'app:' } });
      const bucket = await create({ name: 'bucket', type: 'S3', config: { bucketName: 'events' } });
      await p.batch([
        { type: 'identify', userId: 'ada', traits: { email: 'ada@example.com', plan: 'pro', address: { city: 'London' } } },
        { type: 'track', userId: 'ada', event: 'Clicked' },
      ]);
      await rig.rt.poller.drain();
      expect(await data.hgetall('app:user:ada')).toEqual({ email: 'ada@example.com', plan: 'pro', 'address.city': 'London' });
      expect(await data.keys('*')).toEqual(['app:user:ada']);
      expect((await p.api('GET', `/v2/destinations/${cache}/outcomes`)).body).toMatchObject({ delivered: 2, aborted: 0 });
      const s3 = (await p.api('GET', `/v2/destinations/${bucket}/outcomes`)).body;
      expect(s3).toMatchObject({ delivered: 0, aborted: 2 });
      expect(s3.lastErrors[0].error).toBe('S3 needs accessKeyIdCredential and secretAccessKeyCredential: the workspace credentials holding the keys');
    } finally {
      data.disconnect();
      await server.stop();
    }
  });
});

describe('server-delivered retries', () => {
  it('park an identify when Redis cannot be reached and store it once it can', async () => {
    const server = await startRedisServer();
    const data = new Redis({ host: server.host, port: server.port, lazyConnect: true });
    try {
      await data.connect();
      const p = await pipeline();
      const nobody = `127.0.0.1:${await freePort()}`;
      const cache = (await p.api('POST', '/v2/destinations', { name: 'cache', type: 'REDIS', config: { address: nobody } })).body.destination.id;
      await p.api('POST', '/v2/connections', { sourceId: p.source.id, destinationId: cache });
      await p.track({ userId: 'grace', traits: { plan: 'team' } }, 'identify');
      await rig.rt.poller.drain();
      expect((await p.api('GET', `/v2/destinations/${cache}/outcomes`)).body).toMatchObject({ delivered: 0, retrying: 1 });
      await p.api('PATCH', `/v2/destinations/${cache}`, { config: { address: server.address } });
      await flow(3);
      expect(await data.hgetall('user:grace')).toEqual({ plan: 'team' });
      expect((await p.api('GET', `/v2/destinations/${cache}/outcomes`)).body).toMatchObject({ delivered: 1, retrying: 0 });
    } finally {
      data.disconnect();
      await server.stop();
    }
  });
});

describe('live events and outcomes', () => {
  it('show what a source received newest first, never suppressed events, and what a destination was sent', async () => {
    const p = await pipeline('/live');
    // Users of one shard: the request is one part, so a page of one event holds both (and shows 'one').
    const hidden = oneShard('shown')('hidden');
    await p.api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: hidden }] });
    await p.batch([
      { type: 'track', userId: 'shown', event: 'one' },
      { type: 'track', userId: hidden, event: 'secret' },
    ]);
    await p.track({ userId: 'shown', event: 'two' });
    await flow();
    const live = await p.api('GET', `/v2/sources/${p.source.id}/live-events`);
    expect(live.status).toBe(200);
    expect(live.body.events.map((e: { event: string }) => e.event)).toEqual(['two', 'one']);
    expect(JSON.stringify(live.body)).not.toContain('secret');
    const paged = await p.api('GET', `/v2/sources/${p.source.id}/live-events?limit=1`);
    expect(paged.body.events.map((e: { event: string }) => e.event)).toEqual(['two']);
    const rest = await p.api('GET', paged.body.paging.next);
    expect(rest.body.events.map((e: { event: string }) => e.event)).toEqual(['one']);
    const sent = await p.api('GET', `/v2/destinations/${p.destinations[0]}/live-events`);
    expect(
      sent.body.events.map((e: { outcome: string; status: number; request: { body: { JSON: { event: string } } } }) => [
        e.outcome,
        e.status,
        e.request.body.JSON.event,
      ]),
    ).toEqual([
      ['delivered', 200, 'two'],
      ['delivered', 200, 'one'],
    ]);
    expect((await p.outcomes()).suppressed).toBe(1);
    const other = await pipeline();
    expect((await other.api('GET', `/v2/sources/${p.source.id}/live-events`)).status).toBe(404);
    expect((await other.api('GET', `/v2/destinations/${p.destinations[0]}/outcomes`)).status).toBe(404);
    expect((await p.api('GET', `/v2/sources/${p.source.id}/live-events?after_cursor=forged`)).status).toBe(400);
  });

  it('stop showing the events of a user suppressed after they came in, and show them again once lifted', async () => {
    const p = await pipeline('/live-later');
    await p.batch([
      { type: 'track', userId: 'later', event: 'before' },
      { type: 'track', userId: 'other', event: 'kept' },
    ]);
    await flow();
    const events = async () => (await p.api('GET', `/v2/sources/${p.source.id}/live-events`)).body.events.map((e: { event: string }) => e.event);
    expect(await events()).toEqual(['kept', 'before']);
    const created = await call(rig.rt.controlUrl, 'POST', '/v2/regulations', {
      auth: bearer(p.ws.token),
      headers: { Accept: 'application/json' },
      body: { regulationType: 'suppress', users: [{ userId: ' later ' }] },
    });
    expect(await events()).toEqual(['kept']);
    await p.api('DELETE', `/v2/regulations/${created.body[0].id}`);
    expect(await events()).toEqual(['kept', 'before']);
  });

  it('sends nothing to a disabled destination', async () => {
    const p = await pipeline('/off', '/on');
    await p.api('PATCH', `/v2/destinations/${p.destinations[0]}`, { enabled: false });
    await p.track({ userId: 'u', event: 'x' });
    await flow();
    expect(at('/off')).toEqual([]);
    expect(at('/on')).toHaveLength(1);
  });
});
