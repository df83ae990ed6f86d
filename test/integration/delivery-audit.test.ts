import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { recordedBeforeDying } from '../support/batch-changes';
import { deliveryRig, flowThrough, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { ADMIN, basic, call } from '../support/runtime';
import { DEFAULT_INGEST_SHARDS, eventShard } from '../../shared/domain/ingestion/shards';
import { ingestItems, oneShard } from '../support/ingest-items';

/**
 * The delivery audit (GET /admin/audit, `npm run admin -- audit`): a source's stored events reconciled with
 * each connected destination's records, every event in exactly one state, the events in no state listed.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

const admin = basic(ADMIN.user, ADMIN.password);
const audit = (query: string) => call(rig.rt.dataUrl, 'GET', `/admin/audit?${query}`, { auth: admin });
/** The parts a request of these events is stored as: one a user shard of its source's. */
const partsOf = (events: Record<string, unknown>[], shards = DEFAULT_INGEST_SHARDS) => new Set(events.map((e) => eventShard(e, shards))).size;
const zero = { delivered: 0, retrying: 0, aborted: 0, filtered: 0, suppressed: 0, inProgress: 0, unrecorded: 0, notExpected: 0, missing: 0 };

async function pipeline(options: { ingestShards?: number } = {}) {
  const { ws, api, source, connect, batch } = await sourcePipeline(rig, options);
  return { ws, api, source, connect: (name: string) => connect(webhookAt(rig, `/${source.id}/${name}`, name)), batch };
}

const flow = (rounds: number) => flowThrough(rig, rounds);

describe('the delivery audit', () => {
  it('puts every event in one state per destination, and finds the counters equal to them', async () => {
    // A source of 16 ingest shards: the audit reconciles a request's parts across them.
    const p = await pipeline({ ingestShards: 16 });
    const plain = await p.connect('plain');
    const tagged = await p.connect('tagged');
    // "tagged" drops the events named "drop"; a regulation suppresses user "gone" everywhere.
    const published = await call(rig.rt.controlUrl, 'POST', '/transformations?publish=true', {
      auth: basic(p.ws.email, p.ws.token),
      body: { name: 'Dropper', code: "export function transformEvent(e) { return e.event === 'drop' ? null : e; }", destinationIds: [tagged] },
    });
    expect(published.status).toBe(200);
    await p.api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'gone' }] });
    // At "plain": m-1 refused (400), m-2 fails once then goes, m-3 keeps failing.
    let m2 = 0;
    rig.server.on(`/${p.source.id}/plain`, (req, res) => {
      const id = (req.json as { messageId: string }).messageId;
      if (id === 'm-1') return json(400, { error: 'bad event' })(req, res);
      if (id === 'm-3' || (id === 'm-2' && m2++ === 0)) return json(503, {})(req, res);
      json(200, {})(req, res);
    });
    const sent = [
      { type: 'track', userId: 'u0', event: 'keep', messageId: 'm-0' },
      { type: 'track', userId: 'u1', event: 'keep', messageId: 'm-1' },
      { type: 'track', userId: 'u2', event: 'keep', messageId: 'm-2' },
      { type: 'track', userId: 'u3', event: 'drop', messageId: 'm-3' },
      { type: 'track', userId: 'gone', event: 'keep', messageId: 'm-4' },
      { type: 'track', userId: 'u5', event: 'keep', messageId: 'm-5' },
    ];
    await p.batch(sent);
    await flow(3);

    // The request is stored as one part a user shard: the audit reconciles every one of them.
    const parts = partsOf(sent, 16);
    expect(parts).toBeGreaterThan(1);
    expect((await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id)).filter((item) => item.entity === 'ingest')).toHaveLength(parts);
    const answer = await audit(`sourceId=${p.source.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ sourceId: p.source.id, workspaceId: p.ws.workspaceId, complete: true, parts, events: 6, missing: 0 });
    const byId = Object.fromEntries(answer.body.destinations.map((d: { destinationId: string }) => [d.destinationId, d]));
    expect(byId[plain]).toMatchObject({
      states: { ...zero, delivered: 3, aborted: 1, retrying: 1, suppressed: 1 },
      missing: [],
      counters: { delivered: 3, aborted: 1, retrying: 1, filtered: 0 },
      audited: { delivered: 3, aborted: 1, retrying: 1, filtered: 0 },
      countersExact: true,
    });
    expect(byId[tagged]).toMatchObject({
      states: { ...zero, delivered: 4, filtered: 1, suppressed: 1 },
      counters: { delivered: 4, aborted: 0, retrying: 0, filtered: 1 },
      countersExact: true,
    });

    // The admin CLI answers the same.
    const cli = execFileSync(
      process.execPath,
      [
        '--import',
        'tsx',
        path.resolve(__dirname, '../../infra/local/admin.ts'),
        '--endpoint',
        rig.rt.dynamoEndpoint,
        '--table',
        rig.rt.tableName,
        'audit',
        '--source',
        p.source.id,
      ],
      { encoding: 'utf8' },
    );
    const fromCli = JSON.parse(cli);
    expect(fromCli.destinations.map((d: { states: unknown }) => d.states)).toEqual(answer.body.destinations.map((d: { states: unknown }) => d.states));

    // A range that holds nothing, and one that holds the events: no counters compared with a range.
    const later = new Date(Date.now() + 60_000).toISOString();
    expect((await audit(`sourceId=${p.source.id}&from=${encodeURIComponent(later)}`)).body).toMatchObject({ parts: 0, events: 0, missing: 0 });
    const ranged = (await audit(`sourceId=${p.source.id}&from=${encodeURIComponent(new Date(Date.now() - 60_000).toISOString())}`)).body;
    expect(ranged).toMatchObject({ parts, events: 6 });
    expect(ranged.destinations.map((d: { countersExact: unknown }) => d.countersExact)).toEqual([null, null]);
  }, 90_000);

  it('lists the events of a batch interrupted in no scheduler index as in no state, and no longer once it is indexed', async () => {
    const p = await pipeline();
    // Users of one shard: the request is one batch of five.
    const user = oneShard('u0');
    await p.batch(Array.from({ length: 5 }, (_, i) => ({ type: 'track', userId: user(`u${i}`), event: 'e', messageId: `s-${i}` })));
    await rig.rt.poller.drain();
    // Connected afterwards: nothing was sent to it, and nothing is expected of it.
    const late = await p.connect('late');
    const before = (await audit(`sourceId=${p.source.id}`)).body;
    expect(before.destinations[0]).toMatchObject({ destinationId: late, states: { ...zero, notExpected: 5 }, missing: [] });

    // A dead owner recorded two events while its consumer waited and never put the batch in the index.
    const { parts } = await new IngestRepository(rig.rt.store).recent(p.ws.workspaceId, p.source.id, 1);
    expect(parts[0]!.events).toHaveLength(5);
    const ref = { workspaceId: p.ws.workspaceId, sourceId: p.source.id, destinationId: late, requestId: parts[0]!.requestId, part: parts[0]!.part! };
    const deliveries = new DeliveryRepository(rig.rt.store);
    const lease = new Date(Date.now() - 1000).toISOString();
    expect(await recordedBeforeDying(deliveries, ref, 'gone', 2, lease)).toMatchObject({ established: true });
    const stranded = (await audit(`sourceId=${p.source.id}&limit=2`)).body;
    expect(stranded.missing).toBe(3);
    // Its two delivered events will never be counted either: the counters fall short of them.
    expect(stranded.destinations[0]).toMatchObject({
      states: { ...zero, delivered: 2, missing: 3 },
      counters: { delivered: 0 },
      audited: { delivered: 2 },
      countersExact: false,
    });
    expect(stranded.destinations[0].missing).toEqual([
      expect.objectContaining({ messageId: 's-2', index: 2, why: 'its batch was interrupted and is in no scheduler index: nothing will resume it' }),
      expect.objectContaining({ messageId: 's-3', index: 3 }),
    ]);
    // Once in the scheduler's index, it will be resumed: in progress, not missing.
    await deliveries.realignBatch(ref, lease);
    expect((await audit(`sourceId=${p.source.id}`)).body.destinations[0]).toMatchObject({
      states: { ...zero, delivered: 2, inProgress: 3 },
      audited: { delivered: 0 },
      countersExact: true,
    });
  });

  it('lists the events of an interrupted batch in a held run as in progress: the scheduler resumes the run', async () => {
    const p = await pipeline();
    const user = oneShard('u0');
    await p.batch(Array.from({ length: 4 }, (_, i) => ({ type: 'track', userId: user(`u${i}`), event: 'e', messageId: `h-${i}` })));
    await rig.rt.poller.drain();
    const late = await p.connect('held');
    const { parts } = await new IngestRepository(rig.rt.store).recent(p.ws.workspaceId, p.source.id, 1);
    const ref = { workspaceId: p.ws.workspaceId, sourceId: p.source.id, destinationId: late, requestId: parts[0]!.requestId, part: parts[0]!.part! };
    const deliveries = new DeliveryRepository(rig.rt.store);
    // A dead owner recorded one event, its lease ran out, and its batch is in no index of its own…
    const lease = new Date(Date.now() - 1000).toISOString();
    await recordedBeforeDying(deliveries, ref, 'gone', 1, lease);
    expect((await audit(`sourceId=${p.source.id}`)).body.destinations[0]).toMatchObject({ states: { ...zero, delivered: 1, missing: 3 } });
    // …but in the run it held: the scheduler takes the run over, and the batch with it.
    const held = { workspaceId: ref.workspaceId, sourceId: ref.sourceId, destinationId: late, runId: 'r1', owner: 'gone', leaseUntil: lease };
    await deliveries.holdRun({ ...held, parts: [{ requestId: ref.requestId, part: ref.part }] });
    expect((await audit(`sourceId=${p.source.id}`)).body.destinations[0]).toMatchObject({
      states: { ...zero, delivered: 1, inProgress: 3 },
      audited: { delivered: 0 },
      countersExact: true,
    });
  });

  it('leaves an event refused at ingestion (oversized) out: the batch it came in audits with nothing missing', async () => {
    const p = await pipeline();
    const plain = await p.connect('plain');
    const small = [
      { type: 'track', userId: 'u0', event: 'Small', messageId: 'ok-1' },
      { type: 'track', userId: 'u2', event: 'Small', messageId: 'ok-2' },
    ];
    await p.batch([small[0]!, { type: 'track', userId: 'u1', event: 'Huge', messageId: 'big-1', properties: { blob: 'x'.repeat(40_000) } }, small[1]!]);
    // Refused at ingestion: never acknowledged, so nothing to deliver and nothing to reconcile.
    const live = await p.api('GET', `/v2/sources/${p.source.id}/live-events`);
    expect(live.body.refused).toEqual({ events: 1, lastAt: expect.any(String) });
    await flow(1);
    const answer = await audit(`sourceId=${p.source.id}`);
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ complete: true, parts: partsOf(small), events: 2, missing: 0 });
    const [destination] = answer.body.destinations;
    expect(destination).toMatchObject({
      destinationId: plain,
      states: { ...zero, delivered: 2 },
      missing: [],
      counters: { delivered: 2, aborted: 0, retrying: 0, filtered: 0 },
      countersExact: true,
    });
  });

  it('answers bad input with a 4xx naming the problem', async () => {
    const p = await pipeline();
    const cases: [string, number, string][] = [
      ['', 400, 'query.sourceId: required: the id of the source to audit'],
      ['sourceId=', 400, 'query.sourceId: required: the id of the source to audit'],
      [`sourceId=${'x'.repeat(65)}`, 400, 'query.sourceId: at most 64 characters'],
      [`sourceId=${p.source.id}&from=yesterday`, 400, 'query.from: must be an ISO 8601 date-time, such as 2026-11-24T10:00:00Z'],
      [`sourceId=${p.source.id}&to=2026-13-01T00:00:00Z`, 400, 'query.to: must be an ISO 8601 date-time'],
      [`sourceId=${p.source.id}&from=2026-11-24T10:00:00Z&to=2026-11-24T09:00:00Z`, 400, 'query.from: must not be after to'],
      [`sourceId=${p.source.id}&limit=0`, 400, 'query.limit: at least 1'],
      [`sourceId=${p.source.id}&limit=many`, 400, 'query.limit: must be a number'],
      [`sourceId=${p.source.id}&maxParts=100001`, 400, 'query.maxParts: at most 100000'],
      [`sourceId=${p.source.id}&colour=red`, 400, 'query.colour: unknown field'],
      ['sourceId=nothing-here', 404, 'No source found for sourceId: nothing-here'],
      [`sourceId=${p.source.id}&workspaceId=another`, 404, `No source found for sourceId: ${p.source.id}`],
    ];
    for (const [query, status, text] of cases) {
      const answer = await audit(query);
      expect({ query, status: answer.status, text: answer.text }).toEqual({ query, status, text: expect.stringContaining(text) });
    }
    expect((await call(rig.rt.dataUrl, 'GET', `/admin/audit?sourceId=${p.source.id}`)).status).toBe(400);
    const wrong = await call(rig.rt.dataUrl, 'GET', `/admin/audit?sourceId=${p.source.id}`, { auth: basic(ADMIN.user, 'wrong') });
    expect({ status: wrong.status, text: wrong.text }).toEqual({ status: 400, text: 'Invalid admin credentials' });
    // A deleted source is not found any more: its id's lookup goes with it.
    const catalog = new CatalogRepository(rig.rt.store);
    expect(await catalog.findSource(p.source.id)).toEqual({ workspaceId: p.ws.workspaceId, sourceId: p.source.id });
    expect((await p.api('DELETE', `/v2/sources/${p.source.id}`)).status).toBe(200);
    expect(await catalog.findSource(p.source.id)).toBeUndefined();
    expect((await audit(`sourceId=${p.source.id}`)).status).toBe(404);
  });
});
