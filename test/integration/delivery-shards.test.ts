import { GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchIdOf } from '../../shared/domain/delivery/records';
import { attention } from '../../shared/persistence/delivery-items';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { ingestItems } from '../support/ingest-items';

/**
 * Delivery batches in shards: each batch's item in one of its destination's batch partitions, by the batch's
 * hash, read across them all; a batch written before shards (in the destination's one partition) is resumed
 * where it stood and finished there.
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

it('resumes a batch written before shards where it stood, and finishes it in place', async () => {
  const { ws, source, hook, send, received } = await pipeline();
  await rig.rt.poller.stop(); // the stream hands nothing over: the batch below is the scheduler's to resume
  await send([0, 1, 2].map((i) => ({ type: 'track', userId: 'u', event: 'e', messageId: `old-${i}` })));
  // One user's request: one stored part (of the user's ingest shard).
  const [item, ...others] = await ingestItems(rig.rt.store, ws.workspaceId, source.id);
  expect(others).toEqual([]);
  const [requestId, part] = [String(item!.requestId), Number(item!.part)];
  const ref = { workspaceId: ws.workspaceId, sourceId: source.id, destinationId: hook.id, requestId, part };
  const lease = new Date(Date.now() - 1000).toISOString();
  // Its first event was sent and recorded by a process that died; its lease ran out; it is due in the index.
  const legacy = keys.legacyDeliveryBatch(ws.workspaceId, hook.id, requestId, part);
  await rig.rt.store.doc.send(
    new PutCommand({
      TableName: rig.rt.store.table,
      Item: {
        ...legacy,
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
  expect(received('old-').sort()).toEqual(['old-1', 'old-2']);
  const { Item } = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.store.table, Key: legacy, ConsistentRead: true }));
  expect(Item).toMatchObject({ status: 'done', nDelivered: 3 });
  const sharded = await rig.rt.store.doc.send(
    new GetCommand({ TableName: rig.rt.store.table, Key: keys.deliveryBatch(ws.workspaceId, hook.id, requestId, part), ConsistentRead: true }),
  );
  expect(sharded.Item).toBeUndefined();
});
