import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { errorToResult } from '../../shared/http/error-mapping';
import { eventShard, shardOfUser } from '../../shared/domain/ingestion/shards';
import { requestDigest } from '../../shared/persistence/ingest-parts';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, flowThrough, webhookPipeline } from '../support/delivery-rig';
import { basic, call } from '../support/runtime';
import { getTableClient } from '../../shared/persistence/table-client';
import { ingestItems } from '../support/ingest-items';
import { ingestServiceOver, shardsChangedAt } from '../support/ingestion';
import { intercepting, type SendOn, type StoreAnswer } from '../support/store-intercept';

/**
 * A request of many users stored as several items outside a transaction (docs/concepts/ordering-and-sharding.md, "Ingest shards"):
 * cut short by a crash or a write that fails half way, the client gets no 200 and retries; the retry completes
 * it under the first attempt's keys, so every event is stored and delivered once, its refusals counted once.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

type Put = { PutRequest: { Item: Record<string, unknown> } };
type Input = { RequestItems?: Record<string, Put[]> };
type Change = (input: Input, send: SendOn) => Promise<StoreAnswer>;

/** Runs `run` with the batch writes of `store` (by default the test's) changed by `change` (a crash, a store that pushes back). */
const withBatchWrites = <T>(change: Change, run: () => Promise<T>, store = rig.rt.store) =>
  intercepting((command, input, send) => (command === 'BatchWriteItemCommand' ? change(input, send) : undefined), run, store);

const puts = (input: Input) => Object.values(input.RequestItems!)[0]!;
const only = (input: Input, keep: Put[]) => ({ ...input, RequestItems: { [rig.rt.store.table]: keep } });

/** The process dies after the store took the first `stored` items of the request's batch write. */
const crashAfter = (stored: number) => async (input: Input, send: SendOn) => {
  if (stored > 0) await send(only(input, puts(input).slice(0, stored)));
  throw Object.assign(new Error('socket hang up'), { name: 'TimeoutError' });
};

const service = () => ingestServiceOver(rig.rt.store);

async function pipeline(shards = 16) {
  const p = await webhookPipeline(rig, `/retry-${Math.random().toString(36).slice(2)}`);
  await p.api('PATCH', `/v2/sources/${p.source.id}`, { ingestShards: shards });
  // The change applies from its switch time: moved to the past, as if made long ago (the source had no events).
  await changeMadeAt(p.ws.workspaceId, p.source.id, 1, Date.now() - 60_000);
  const accept = (batch: Record<string, unknown>[]) => service().accept({ type: 'batch', body: { batch }, authorization: basic(p.source.writeKey, '') });
  const stored = async () => (await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id)).filter((item) => item.entity === 'ingest');
  return { ...p, accept, stored };
}

const changeMadeAt = (workspaceId: string, sourceId: string, previous: number, atMs: number) =>
  shardsChangedAt(rig.rt.store, workspaceId, sourceId, previous, atMs);

/** A server SDK's request: 20 users' events, each with the messageId the SDK gave it (and sends again on a retry). */
const request = (tag: string) => Array.from({ length: 20 }, (_, i) => ({ type: 'track', userId: `${tag}-user-${i}`, event: 'e', messageId: `${tag}-${i}` }));

const statusOf = (error: unknown) => errorToResult(error, 'data').statusCode;

it('completes a request cut short after some of its items when the client retries: every event stored and delivered once', async () => {
  const p = await pipeline();
  const batch = request('cut');
  const parts = new Set(batch.map((e) => eventShard(e, 16))).size;
  const failed = await withBatchWrites(crashAfter(5), () => p.accept(batch).catch((e: unknown) => e));
  expect(statusOf(failed)).toBe(503);
  expect(await p.stored()).toHaveLength(5);
  // What was stored goes out meanwhile: the stream hands each stored item over as it is inserted.
  await flowThrough(rig);
  expect(p.received().length).toBeGreaterThan(0);

  await expect(p.accept(batch)).resolves.toMatchObject({ accepted: 20 });
  const stored = await p.stored();
  // The retry's items are the first attempt's: one request, one item a shard, none twice.
  expect(new Set(stored.map((item) => item.requestId)).size).toBe(1);
  expect(stored).toHaveLength(parts);
  await flowThrough(rig);
  expect([...p.received()].sort()).toEqual(batch.map((e) => e.messageId).sort());
});

it('stores nothing again when the 200 was lost and the client sends the request again', async () => {
  const p = await pipeline();
  const batch = request('lost');
  await p.accept(batch);
  const first = await p.stored();
  await flowThrough(rig);
  await p.accept(batch);
  const ids = (items: Record<string, unknown>[]) => items.map(({ pk, sk, requestId, receivedAt, shards }) => ({ pk, sk, requestId, receivedAt, shards }));
  expect(ids(await p.stored())).toEqual(ids(first));
  await flowThrough(rig);
  expect([...p.received()].sort()).toEqual(batch.map((e) => e.messageId).sort());
});

it('records and counts a request’s refused events once when it died after its claim and before any item, and is retried', async () => {
  const p = await pipeline();
  const batch = [...request('claimed'), { type: 'track', userId: 'big', event: 'e', messageId: 'claimed-big', blob: 'x'.repeat(33_000) }];
  const failed = await withBatchWrites(crashAfter(0), () => p.accept(batch).catch((e: unknown) => e));
  expect(statusOf(failed)).toBe(503);
  expect(await p.stored()).toEqual([]);
  await expect(p.accept(batch)).resolves.toMatchObject({ accepted: 20, refused: [expect.objectContaining({ index: 20 })] });
  const stats = await new IngestRepository(rig.rt.store).sourceStats(p.ws.workspaceId, p.source.id);
  expect(stats.refused).toBe(1);
  const refusedRecords = (await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id)).filter((item) => item.entity === 'ingestRefused');
  expect(refusedRecords).toHaveLength(1);
  await flowThrough(rig);
  expect([...p.received()].sort()).toEqual(
    request('claimed')
      .map((e) => e.messageId)
      .sort(),
  );
});

it('puts again what the store left unprocessed, and answers 429 when it keeps pushing back; the retry completes the request', async () => {
  const p = await pipeline();
  // Once: half left unprocessed, put again in the same call.
  let pushedBack = 0;
  const once = async (input: Input, send: SendOn) => {
    if (pushedBack++ > 0) return send(input);
    const items = puts(input);
    const taken = await send(only(input, items.slice(0, 3)));
    return { ...taken, output: { ...taken.output, UnprocessedItems: { [rig.rt.store.table]: items.slice(3) } } };
  };
  await withBatchWrites(once, () => p.accept(request('busy-once')));
  expect(pushedBack).toBe(2);
  expect(new Set((await p.stored()).map((item) => item.requestId)).size).toBe(1);

  // Always: every item left unprocessed until the attempts run out; the client's retry stores the request.
  const always = async (input: Input, send: SendOn) => {
    const taken = await send(only(input, puts(input).slice(0, 1)));
    return { ...taken, output: { ...taken.output, UnprocessedItems: { [rig.rt.store.table]: puts(input).slice(1) } } };
  };
  const batch = request('busy');
  const failed = await withBatchWrites(always, () => p.accept(batch).catch((e: unknown) => e));
  expect(statusOf(failed)).toBe(429);
  await p.accept(batch);
  await flowThrough(rig);
  expect([...p.received()].sort()).toEqual([...request('busy-once'), ...batch].map((e) => e.messageId).sort());
});

it('completes a retried request in the shards of its first attempt when the source changed shards in between', async () => {
  const p = await pipeline(8);
  const batch = request('moved');
  await withBatchWrites(crashAfter(2), () => p.accept(batch).catch((e: unknown) => e));
  await p.api('PATCH', `/v2/sources/${p.source.id}`, { ingestShards: 32 });
  await changeMadeAt(p.ws.workspaceId, p.source.id, 8, Date.now() - 60_000);
  await p.accept(batch);
  const stored = await p.stored();
  expect(stored.map((item) => item.shards)).toEqual(stored.map(() => 8));
  expect(stored).toHaveLength(new Set(batch.map((e) => eventShard(e, 8))).size);
  await flowThrough(rig);
  expect([...p.received()].sort()).toEqual(batch.map((e) => e.messageId).sort());
});

it('takes a request sent again after its claim’s day as a new one', async () => {
  const p = await pipeline();
  const batch = request('late');
  await p.accept(batch);
  const digest = requestDigest({ events: batch });
  const claims = await rig.rt.store.doc.send(
    new UpdateCommand({
      TableName: rig.rt.store.table,
      Key: keys.requestClaim(p.ws.workspaceId, p.source.id, digest, shardOfUser(digest, 16)),
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      ReturnValues: 'ALL_OLD',
    }),
  );
  expect(claims.Attributes).toBeDefined();
  await p.accept(batch);
  expect(new Set((await p.stored()).map((item) => item.requestId)).size).toBe(2);
});

it('counts a tracking plan’s verdicts and keeps its dropped events once for a request retried through the data plane', async () => {
  const p = await pipeline();
  const spec = { type: 'track', name: 'Order Completed', schema: { type: 'object', required: ['orderId'] } };
  const plan = (await p.api('POST', '/v2/tracking-plans', { name: 'Orders', specs: [spec] })).body.trackingPlan;
  await p.api('PUT', `/v2/sources/${p.source.id}/tracking-plan`, { planId: plan.id, mode: 'drop-event' });
  // 20 users: every fourth order has no orderId and is dropped.
  const batch = Array.from({ length: 20 }, (_, i) => ({
    type: 'track',
    userId: `plan-user-${i}`,
    event: 'Order Completed',
    messageId: `plan-${i}`,
    properties: i % 4 === 0 ? {} : { orderId: `o${i}` },
  }));
  const send = () => call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(p.source.writeKey, ''), body: { batch } });
  // Through the data plane's own store client (its handlers run in this process): the write dies after 3 items.
  await withBatchWrites(crashAfter(3), async () => expect((await send()).status).toBe(503), getTableClient());
  expect((await send()).status).toBe(200);
  const stats = (await p.api('GET', `/v2/tracking-plans/${plan.id}/stats`)).body.totals;
  expect(stats).toMatchObject({ total: 20, validated: 15, dropped: 5 });
  const dropped = (await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id)).filter((item) => item.entity === 'ingestDropped');
  expect(dropped).toHaveLength(1);
  await flowThrough(rig);
  expect([...p.received()].sort()).toEqual(
    batch
      .filter((_, i) => i % 4 !== 0)
      .map((e) => e.messageId)
      .sort(),
  );
});
