import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryMachinery } from '../../shared/composition/delivery';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { ulidOf } from '../../shared/destinations/customerio/ulid';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { keys } from '../../shared/persistence/keys';
import { queryAll } from '../../shared/persistence/table-client';
import {
  amplitudeAt,
  amplitudeRequestsAt,
  deliveryRig,
  flowThrough,
  flowUntil,
  sourcePipeline,
  webhookAt,
  type DestinationSpec,
} from '../support/delivery-rig';
import { recordedBeforeDying } from '../support/batch-changes';
import { json, messageIdsAt } from '../support/destination-server';
import { ingestItems, oneShard } from '../support/ingest-items';
import { unpackEvents } from '../../shared/persistence/ingest-repository';
import { itemsIn } from '../support/partition-items';
import { deliveryHandler, handOver, streamRecordOf } from '../support/stream-records';
import { intercepting } from '../support/store-intercept';

/** Delivery in chunks to a vendor's batch API, and each user's order kept behind a parked event. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
// Destinations connected in a test are seen at once (the default keeps a source's destinations 5 s).
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

const pipeline = (...destinations: DestinationSpec[]) => pipelineOf({}, ...destinations);

/** A source (made with `options`) connected to each destination given: `outcomes(i)` are the `i`th one's. */
async function pipelineOf(options: { ingestShards?: number }, ...destinations: DestinationSpec[]) {
  const p = await sourcePipeline(rig, options);
  const ids: string[] = [];
  for (const destination of destinations) ids.push(await p.connect(destination));
  return { ...p, ids, outcomes: async (i = 0) => p.outcomes(ids[i]!) };
}

const flow = (rounds = 1) => flowThrough(rig, rounds);
/** Scheduler rounds until the destination has nothing retrying (at most 12), and one more. */
const flowUntilSettled = (outcomes: () => Promise<{ retrying: number }>) => flowUntil(rig, async () => (await outcomes()).retrying === 0, 12);

const amplitude = (path: string) => amplitudeAt(rig, path);
const webhook = (path: string) => webhookAt(rig, path);
const amplitudeEvents = (path: string) => amplitudeRequestsAt(rig, path);
const events = (n: number, user: (i: number) => string, prefix = 'm') =>
  Array.from({ length: n }, (_, i) => ({ type: 'track', userId: user(i), event: `e${i}`, messageId: `${prefix}-${i}` }));
const customerio = (path: string): DestinationSpec => ({
  name: path,
  type: 'CUSTOMERIO',
  config: { siteID: 'site', apiKey: 'key', baseUrl: `${rig.server.url}${path}` },
});
type CioEntity = { action: string; id?: string; name?: string; identifiers: Record<string, string> };
const customerioBatches = (path: string) =>
  rig.server.received.filter((r) => r.path === `${path}/api/v2/batch`).map((r) => (r.json as { batch: CioEntity[] }).batch);
const ga4 = (path: string): DestinationSpec => ({
  name: path,
  type: 'GA4',
  config: { apiSecret: 'secret', measurementId: 'G-1', baseUrl: `${rig.server.url}${path}` },
});
const at = (i: number) => new Date(Date.UTC(2026, 10, 23, 10, 0, i)).toISOString();

/** Sends `count` events of users of one shard, stored as one batch, hands them to the consumers and returns its item. */
async function oneBatch(p: Awaited<ReturnType<typeof pipeline>>, count: number) {
  const user = oneShard('user-0');
  await p.batch(events(count, (i) => user(`user-${i}`)));
  await rig.rt.poller.drain();
  const [item, ...others] = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
  expect(others).toEqual([]);
  return item!;
}

describe('batched delivery', () => {
  it('sends a batch to Amplitude as one request, every event with its messageId as insert_id, counted once', async () => {
    const p = await pipeline(amplitude('/amp'));
    // Seven users in one shard: the request is stored as one batch.
    const user = oneShard('user-0');
    await p.batch(events(45, (i) => user(`user-${i % 7}`)));
    await flow();
    const requests = amplitudeEvents('/amp');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.map((e) => e.insert_id)).toEqual(Array.from({ length: 45 }, (_, i) => `m-${i}`));
    expect(await p.outcomes()).toMatchObject({ delivered: 45, retrying: 0, aborted: 0 });
  });

  it("sends a request's batches (one a user shard) to Amplitude together, each batch's events in their order, finished in their run's record, counted in one write", async () => {
    const p = await pipelineOf({ ingestShards: 16 }, amplitude('/amp-shards'));
    await p.batch(events(45, (i) => `user-${i % 7}`));
    await flow();
    const ingested = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    const stored = ingested.map((item) => unpackEvents(item.payload as Uint8Array));
    expect(stored.length).toBeGreaterThan(1);
    const sent = amplitudeEvents('/amp-shards').map((request) => request.map((e) => e.insert_id));
    // The parts a stream batch hands over go in one request to the vendor, not one a part (the local stream may
    // hand a request's items over in more than one batch, as they are written side by side).
    expect(sent.length).toBeLessThan(stored.length);
    expect(sent.flat().sort()).toEqual(
      stored
        .flat()
        .map((e) => String(e.messageId))
        .sort(),
    );
    for (const batch of stored) {
      const request = sent.find((r) => r.includes(String(batch[0]!.messageId)))!;
      const at = batch.map((e) => request.indexOf(String(e.messageId)));
      expect(at).toEqual(Array.from({ length: batch.length }, (_, k) => at[0]! + k));
    }
    // A run's parts have no items of their own (a stream batch of one part finishes it alone, in its item): its
    // record lists them, and every part reads back done, with its trail.
    const items = (await itemsIn(rig.rt.store, keys.deliveryBatchPartitions(p.ws.workspaceId, p.ids[0]!))).filter((item) => item.entity === 'deliveryBatch');
    expect(items.length).toBeLessThan(stored.length);
    const parts = ingested.map((item) => ({ requestId: String(item.requestId), part: Number(item.part) }));
    const records = await new DeliveryRepository(rig.rt.store).batchesOf(p.ws.workspaceId, p.ids[0]!, parts);
    expect(records.map((r) => `${r.requestId}#${r.part}`).sort()).toEqual(parts.map((r) => `${r.requestId}#${r.part}`).sort());
    expect(records.map((r) => [r.status, r.trail])).toEqual(
      records.map((r) => ['done', `${stored[parts.findIndex((q) => q.requestId === r.requestId && q.part === r.part)]!.length}d`]),
    );
    // The destination's counters moved once for each run of parts: at most a counter shard a request, not one a batch.
    const shards = keys.destinationStatsShards(p.ws.workspaceId, p.ids[0]!);
    const written = await Promise.all(shards.map((key) => rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.store.table, Key: key }))));
    expect(written.filter((answer) => answer.Item).length).toBeLessThanOrEqual(sent.length);
    expect(await p.outcomes()).toMatchObject({ delivered: 45, retrying: 0, aborted: 0 });
  });

  it('parks only the events a chunk answer names, and keeps their user waiting while the others flow', async () => {
    const p = await pipeline(amplitude('/throttle'));
    // The first answer throttles every event of user "hot" (429 throttled_events); later answers take all.
    let answers = 0;
    rig.server.on('/throttle/2/httpapi', (req, res) => {
      const sent = (req.json as { events: { user_id: string }[] }).events;
      const throttled = sent.flatMap((e, i) => (e.user_id === 'hot' ? [i] : []));
      if (answers++ === 0) json(429, { code: 429, error: 'Too many requests for some devices and users', throttled_events: throttled })(req, res);
      else json(200, { code: 200, events_ingested: sent.length })(req, res);
    });
    // Users of one shard: each request is one batch, so one chunk of both kinds of users.
    const user = oneShard('hot');
    await p.batch(events(10, (i) => (i % 3 === 0 ? 'hot' : user(`cool-${i}`)), 'first'));
    await rig.rt.poller.drain();
    expect(await p.outcomes()).toMatchObject({ delivered: 6, retrying: 4 });
    // A later request: the cool users' events go at once, "hot"'s wait behind its parked ones.
    await p.batch(events(4, (i) => (i % 2 === 0 ? 'hot' : user(`cool-${i}`)), 'second'));
    await rig.rt.poller.drain();
    expect(amplitudeEvents('/throttle')[1]!.map((e) => e.insert_id)).toEqual(['second-1', 'second-3']);
    expect(await p.outcomes()).toMatchObject({ delivered: 8, retrying: 6 });
    await flowUntilSettled(() => p.outcomes());
    const hot = amplitudeEvents('/throttle')
      .slice(1)
      .flat()
      .filter((e) => e.user_id === 'hot')
      .map((e) => e.insert_id);
    expect(hot).toEqual(['first-0', 'first-3', 'first-6', 'first-9', 'second-0', 'second-2']);
    expect(await p.outcomes()).toMatchObject({ delivered: 14, retrying: 0, aborted: 0 });
  });

  it("holds a user's later events behind the one a webhook failed, in their order, while other users' events flow", async () => {
    const p = await pipeline(webhook('/ordered'));
    let failed = false;
    rig.server.on('/ordered', (req, res) => {
      const event = req.json as { userId: string };
      if (event.userId === 'slow' && !failed) {
        failed = true;
        return json(503, {})(req, res);
      }
      json(200, {})(req, res);
    });
    // Users of one shard: one batch, whose fast users' events go on past slow's parked one.
    const user = oneShard('slow');
    await p.batch(events(6, (i) => (i % 2 === 0 ? 'slow' : user(`fast-${i}`))));
    await rig.rt.poller.drain();
    const sent = () => rig.server.received.filter((r) => r.path === '/ordered').map((r) => r.json as { messageId: string; userId: string });
    // The fast users' events went; "slow"'s first failed and its later ones were not sent.
    expect(sent().map((e) => e.messageId)).toEqual(['m-0', 'm-1', 'm-3', 'm-5']);
    expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 3 });
    await flowUntilSettled(() => p.outcomes());
    const slow = sent()
      .filter((e) => e.userId === 'slow')
      .map((e) => e.messageId);
    expect(slow).toEqual(['m-0', 'm-0', 'm-2', 'm-4']);
    expect(await p.outcomes()).toMatchObject({ delivered: 6, retrying: 0, aborted: 0 });
  });

  it('resumes a chunked batch after a restart with what was not recorded, once', async () => {
    const p = await pipeline();
    const item = await oneBatch(p, 30);
    const d = (await p.api('POST', '/v2/destinations', amplitude('/resumed'))).body.destination.id as string;
    const ref = { workspaceId: p.ws.workspaceId, sourceId: p.source.id, destinationId: d, requestId: String(item.requestId), part: Number(item.part) };
    // A run recorded its first chunk (12 events) and died mid-batch; its lease runs out at once.
    const deliveries = new DeliveryRepository(rig.rt.store);
    const lease = new Date(Date.now() + 300).toISOString();
    expect(await recordedBeforeDying(deliveries, ref, 'crashed', 12, lease)).toMatchObject({ established: true });
    expect(await deliveries.releaseBatch(ref, 'crashed', lease)).toBe(true);
    await sleep(350);
    await rig.rt.scheduler.runNow();
    await rig.rt.scheduler.runNow();
    const requests = amplitudeEvents('/resumed');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.map((e) => e.insert_id)).toEqual(Array.from({ length: 18 }, (_, i) => `m-${i + 12}`));
    expect((await p.api('GET', `/v2/destinations/${d}/outcomes`)).body).toMatchObject({ delivered: 30 });
  });

  it("puts a batch whose record comes again while another owner's lease is live where the scheduler finds it", async () => {
    const p = await pipeline();
    const item = await oneBatch(p, 4);
    const d = await p.connect(webhook('/again'));
    const ref = { workspaceId: p.ws.workspaceId, sourceId: p.source.id, destinationId: d, requestId: String(item.requestId), part: Number(item.part) };
    // Its owner recorded two events while its consumer waited, and died with its process: not in the index.
    const deliveries = new DeliveryRepository(rig.rt.store);
    // Long enough to outlive the handler's two turns below on a busy machine; the test waits it out at its end.
    const lease = new Date(Date.now() + 5000).toISOString();
    expect(await recordedBeforeDying(deliveries, ref, 'gone', 2, lease)).toMatchObject({ established: true });
    // The stream hands the record over again: nothing is sent while the lease lives, and the batch is indexed.
    const handler = deliveryHandler();
    const record = streamRecordOf(item, 'again');
    // While the index cannot be written, the record is not let go: it is parked, to come back later.
    const failIndexing = (_: unknown, input: Record<string, unknown>) => {
      if (input.UpdateExpression === 'SET gsi1pk = :gpk, gsi1sk = :gsk') throw Object.assign(new Error('store unavailable'), { name: 'InternalServerError' });
    };
    await intercepting(failIndexing, async () => expect(await handler({ Records: [{ ...record, eventID: 'refused' }] })).toEqual({ batchItemFailures: [] }));
    const parked = await queryAll(rig.rt.store, {
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': keys.parkedRecord(p.ws.workspaceId, 'delivery', 'x').pk },
    });
    expect(parked.map((item) => [item.eventId, item.lastError])).toEqual([['refused', 'store unavailable']]);
    expect(await handler({ Records: [record] })).toEqual({ batchItemFailures: [] });
    expect(rig.server.received.filter((r) => r.path === '/again')).toEqual([]);
    await sleep(Date.parse(lease) - Date.now() + 30);
    await rig.rt.scheduler.runNow();
    expect(messageIdsAt(rig.server, '/again')).toEqual(['m-2', 'm-3']);
  });

  it('puts a batch its consumer stopped waiting for in the middle of its sends where the scheduler finds it, before letting the record go', async () => {
    const p = await pipeline();
    const item = await oneBatch(p, 3);
    const d = await p.connect(webhook('/stalled'));
    // The first event is answered at once (and recorded); the second hangs until released.
    let release = () => {};
    rig.server.on('/stalled', (req, res) => {
      if ((req.json as { messageId: string }).messageId !== 'm-1') return json(200, {})(req, res);
      release = () => json(200, {})(req, res);
    });
    expect(await handOver([item], 'stalled')).toEqual({ batchItemFailures: [] });
    // The record is let go (its checkpoint may pass it) while m-1 is in flight: were the process to die now,
    // only the scheduler's index would bring the batch back, through its held run.
    const key = keys.deliveryBatch(p.ws.workspaceId, d, String(item.requestId), Number(item.part));
    const sending = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.tableName, Key: key, ConsistentRead: true }));
    expect(sending.Item).toMatchObject({ status: 'sending', progress: 1 });
    const held = await new DeliveryRepository(rig.rt.store).heldRuns(p.ws.workspaceId, d);
    expect(held).toEqual([expect.objectContaining({ sourceId: p.source.id, parts: [{ requestId: item.requestId, part: item.part }] })]);
    const due = await rig.rt.store.doc.send(
      new GetCommand({ TableName: rig.rt.tableName, Key: keys.deliveryHold(p.ws.workspaceId, d, held[0]!.runId), ConsistentRead: true }),
    );
    expect(due.Item).toMatchObject({ gsi1pk: expect.stringMatching(/^DELIVERY#DUE#\d+$/), gsi1sk: expect.stringContaining(`${held[0]!.leaseUntil}#H#`) });
    release();
    await deliveryMachinery().lanes.idle();
    const done = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.tableName, Key: key, ConsistentRead: true }));
    expect(done.Item).toMatchObject({ status: 'done', progress: 3 });
    expect(done.Item!.gsi1pk).toBeUndefined();
    // The run ended its hold.
    expect(await new DeliveryRepository(rig.rt.store).heldRuns(p.ws.workspaceId, d)).toEqual([]);
  });

  it('sends Customer.io events as one /api/v2/batch request, in their order, each with the ULID of its messageId', async () => {
    const p = await pipeline(customerio('/cio'));
    // Users of one shard: the request is one batch.
    const user = oneShard('user-0');
    const sent = Array.from({ length: 12 }, (_, i) => ({
      ...(i % 4 === 3 ? { type: 'page', properties: { url: `https://x.io/${i}` } } : { type: 'track', event: `e${i}` }),
      userId: user(`user-${i % 5}`),
      messageId: `m-${i}`,
      timestamp: at(i),
    }));
    await p.batch(sent);
    await flow();
    const requests = customerioBatches('/cio');
    expect(requests).toHaveLength(1);
    expect(requests[0]!.map((e) => [e.action, e.identifiers.id, e.id])).toEqual(
      sent.map((e, i) => [e.type === 'page' ? 'page' : 'event', user(`user-${i % 5}`), ulidOf(`m-${i}`, new Date(at(i)))]),
    );
    expect(rig.server.received.find((r) => r.path === '/cio/api/v2/batch')!.headers.authorization).toBe(`Basic ${Buffer.from('site:key').toString('base64')}`);
    expect(await p.outcomes()).toMatchObject({ delivered: 12, retrying: 0, aborted: 0 });
  });

  it('aborts only the Customer.io entities a 207 answer names; the others are delivered and not sent again', async () => {
    const p = await pipeline(customerio('/cio207'));
    rig.server.on('/cio207/api/v2/batch', json(207, { errors: [{ batch_index: 2, reason: 'invalid', field: 'name', message: 'too long' }] }));
    // Users of one shard: the request is one batch, one chunk.
    const user = oneShard('user-0');
    await p.batch(events(5, (i) => user(`user-${i}`)));
    await flow(3);
    expect(customerioBatches('/cio207').map((batch) => batch.map((e) => e.name))).toEqual([['e0', 'e1', 'e2', 'e3', 'e4']]);
    const outcomes = await p.outcomes();
    expect(outcomes).toMatchObject({ delivered: 4, retrying: 0, aborted: 1 });
    expect(JSON.stringify(outcomes)).toContain('Customer.io refused the event: name: invalid too long');
  });

  it('reads a 207 on a retried Customer.io event too: the entity it names is aborted', async () => {
    const p = await pipeline(customerio('/cioretry'));
    let answers = 0;
    rig.server.on('/cioretry/api/v2/batch', (req, res) => {
      // The chunk fails as a whole; each event then goes again alone, and "e1" is refused.
      if (answers++ === 0) return json(503, {})(req, res);
      const [entity] = (req.json as { batch: CioEntity[] }).batch;
      if (entity!.name === 'e1') return json(207, { errors: [{ batch_index: 0, reason: 'invalid', message: 'bad event' }] })(req, res);
      json(200, {})(req, res);
    });
    // Users of one shard: the request is one batch, one chunk.
    const user = oneShard('user-0');
    await p.batch(events(3, (i) => user(`user-${i}`)));
    await rig.rt.poller.drain();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 3 });
    await flowUntilSettled(() => p.outcomes());
    expect(customerioBatches('/cioretry').map((batch) => batch.length)).toEqual([3, 1, 1, 1]);
    expect(await p.outcomes()).toMatchObject({ delivered: 2, retrying: 0, aborted: 1 });
  });

  it("sends one GA4 client's events 25 to a request, each with its time; another client's go in requests of their own", async () => {
    const p = await pipeline(ga4('/ga'));
    // Times within GA4's 72 hours (older events are aborted unsent: vendor-verdicts.test.ts).
    const start = Date.now() - 3600_000;
    const recent = (i: number) => new Date(start + i * 1000).toISOString();
    const sent = Array.from({ length: 33 }, (_, i) => ({
      type: 'track',
      anonymousId: i < 30 ? 'client-a' : 'client-b',
      event: `e${i}`,
      messageId: `m-${i}`,
      timestamp: recent(i),
    }));
    await p.batch(sent);
    await flow();
    const requests = rig.server.received
      .filter((r) => r.path === '/ga/mp/collect')
      .map((r) => r.json as { client_id: string; timestamp_micros?: number; events: { name: string; timestamp_micros: number }[] });
    expect(requests.map((r) => [r.client_id, r.events.length, r.timestamp_micros])).toEqual([
      ['client-a', 25, undefined],
      ['client-a', 5, undefined],
      ['client-b', 3, undefined],
    ]);
    expect(requests.flatMap((r) => r.events.map((e) => [e.name, e.timestamp_micros]))).toEqual(sent.map((e, i) => [e.event, Date.parse(recent(i)) * 1000]));
    expect(rig.server.received.find((r) => r.path === '/ga/mp/collect')!.query).toEqual({ measurement_id: 'G-1', api_secret: 'secret' });
    expect(await p.outcomes()).toMatchObject({ delivered: 33, retrying: 0, aborted: 0 });
  });
});
