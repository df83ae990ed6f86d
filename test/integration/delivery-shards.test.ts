import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { decodeTime } from 'ulid';
import { LEGACY_WRITERS_GONE_MS } from '../../shared/persistence/cut-overs';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { batchIdOf } from '../../shared/domain/delivery/records';
import { attention } from '../../shared/persistence/delivery-items';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { ingestItems } from '../support/ingest-items';

/**
 * Delivery batches in shards: each batch's item in one of its destination's batch partitions, by the batch's
 * hash, read across them all; a batch written before shards (in the destination's one partition), or with
 * fewer of them (128 or 64), is found, resumed where it stood and finished there; the earlier layouts are
 * looked in only for requests received before the workspace's cut-over to today's.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

async function pipeline() {
  const p = await webhookPipeline(rig);
  return { ...p, received: (prefix: string) => p.received().filter((id) => id.startsWith(prefix)) };
}

it("spreads a destination's batches over its partitions, and its live events read them all", async () => {
  const { ws, api, hook, send } = await pipeline();
  for (let r = 0; r < 16; r++) await send([{ type: 'track', userId: `u-${r}`, event: 'e', messageId: `spread-${r}` }]);
  await rig.rt.poller.drain();

  const partitions = keys.deliveryBatchPartitions(ws.workspaceId, hook.id);
  const counts = await Promise.all(
    partitions.map(async (pk) => {
      const { Items = [] } = await rig.rt.store.doc.send(
        new QueryCommand({ TableName: rig.rt.store.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk }, ConsistentRead: true }),
      );
      return Items.length;
    }),
  );
  expect(counts.reduce((a, b) => a + b, 0)).toBe(16);
  expect(counts.filter((n) => n > 0).length).toBeGreaterThan(1);

  const live = (await api('GET', `/v2/destinations/${hook.id}/live-events`)).body;
  expect(new Set(live.events.map((e: { messageId: string }) => e.messageId))).toEqual(new Set(Array.from({ length: 16 }, (_, r) => `spread-${r}`)));
});

type Layout = typeof keys.legacyDeliveryBatch;
/** The layout of one of the earlier shard counts (EARLIER_DELIVERY_SHARDS, by index). */
const withShards =
  (layout: number): Layout =>
  (...args) =>
    keys.earlierDeliveryBatches(...args)[layout]!;

/**
 * A stored request (the stream stopped: nothing of it is delivered), whose batch at the hook `layout` puts
 * somewhere else than today's layout: sent again with another user until its hash says so.
 */
async function storedRequest(layout: Layout) {
  const p = await pipeline();
  await rig.rt.poller.stop();
  for (let attempt = 0; ; attempt++) {
    await p.send([0, 1, 2].map((i) => ({ type: 'track', userId: `u-${attempt}`, event: 'e', messageId: `old-${attempt}-${i}` })));
    const items = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    const [requestId, part] = [String(items.at(-1)!.requestId), Number(items.at(-1)!.part)];
    const earlier = layout(p.ws.workspaceId, p.hook.id, requestId, part);
    if (earlier.pk !== keys.deliveryBatch(p.ws.workspaceId, p.hook.id, requestId, part).pk) {
      return {
        ...p,
        requestId,
        part,
        earlier,
        prefix: `old-${attempt}-`,
        ref: { workspaceId: p.ws.workspaceId, sourceId: p.source.id, destinationId: p.hook.id, requestId, part },
      };
    }
  }
}

it.each([
  ['before shards', keys.legacyDeliveryBatch],
  ['with 128 shards', withShards(0)],
  ['with 64 shards', withShards(1)],
])('resumes a batch written %s where it stood, and finishes it in place', async (_, layout) => {
  const { ws, hook, received, requestId, part, ref, earlier, prefix } = await storedRequest(layout);
  const lease = new Date(Date.now() - 1000).toISOString();
  // Its first event was sent and recorded by a process that died; its lease ran out; it is due in the index.
  await rig.rt.store.doc.send(
    new PutCommand({
      TableName: rig.rt.store.table,
      Item: {
        ...earlier,
        ...ref,
        ...attention(lease, 'B', batchIdOf(ref), `${requestId}#${part}`),
        gsi1pk: 'DELIVERY#DUE', // the scheduler's index before it was sharded
        entity: 'deliveryBatch',
        owner: 'a-process-that-died',
        status: 'sending',
        leaseUntil: lease,
        progress: 1,
        output: 0,
        nDelivered: 1,
        nFiltered: 0,
        nAborted: 0,
      },
    }),
  );

  await rig.rt.scheduler.runNow();
  expect(received(prefix).sort()).toEqual([`${prefix}1`, `${prefix}2`]);
  const { Item } = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.store.table, Key: earlier, ConsistentRead: true }));
  expect(Item).toMatchObject({ status: 'done', nDelivered: 3 });
  const sharded = await rig.rt.store.doc.send(
    new GetCommand({ TableName: rig.rt.store.table, Key: keys.deliveryBatch(ws.workspaceId, hook.id, requestId, part), ConsistentRead: true }),
  );
  expect(sharded.Item).toBeUndefined();
});

it.each([
  [128, 0],
  [64, 1],
])('finds a finished batch of the layout with %i partitions, so that its record handed over again sends nothing', async (_, layout) => {
  const { ref, earlier } = await storedRequest(withShards(layout));
  const deliveries = new DeliveryRepository(rig.rt.store);
  expect(await deliveries.readBatch(ref)).toEqual({ kind: 'absent' });
  await rig.rt.store.doc.send(
    new PutCommand({ TableName: rig.rt.store.table, Item: { ...earlier, ...ref, entity: 'deliveryBatch', status: 'done', progress: 3, output: 0 } }),
  );
  expect(await new DeliveryRepository(rig.rt.store).readBatch(ref)).toMatchObject({ kind: 'done' });
});

describe("a workspace's cut-over to today's layout", () => {
  it('is written by the first read that needs it, a few minutes ahead, so that what is received until then is looked for in the earlier layouts too', async () => {
    const { ws, ref, earlier } = await storedRequest(withShards(0));
    const before = Date.now();
    await rig.rt.store.doc.send(
      new PutCommand({ TableName: rig.rt.store.table, Item: { ...earlier, ...ref, entity: 'deliveryBatch', status: 'done', progress: 3, output: 0 } }),
    );
    expect(await new DeliveryRepository(rig.rt.store).readBatch(ref)).toMatchObject({ kind: 'done' });
    const { Item } = await rig.rt.store.doc.send(
      new GetCommand({ TableName: rig.rt.store.table, Key: keys.deliveryLayoutCutOver(ws.workspaceId), ConsistentRead: true }),
    );
    expect(Date.parse(String(Item?.at))).toBeGreaterThanOrEqual(before + LEGACY_WRITERS_GONE_MS);
  });

  it.each([
    ['after', 'absent', -1],
    ['before', 'done', 1],
  ])('reads the batch, kept in an earlier layout, of a request received %s it as %s', async (_, kind, offset) => {
    const { ws, ref, earlier } = await storedRequest(withShards(0));
    await rig.rt.store.doc.send(
      new PutCommand({ TableName: rig.rt.store.table, Item: { ...earlier, ...ref, entity: 'deliveryBatch', status: 'done', progress: 3, output: 0 } }),
    );
    const deliveries = new DeliveryRepository(rig.rt.store);
    await deliveries.recordLayoutCutOver(ws.workspaceId, decodeTime(ref.requestId) + offset);
    expect(await deliveries.readBatch(ref)).toMatchObject({ kind });
  });
});
