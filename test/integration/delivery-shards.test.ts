import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';

/**
 * Delivery batches in shards: each batch's item in one of its destination's batch partitions, by the batch's
 * hash, read across them all.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

async function pipeline() {
  const p = await webhookPipeline(rig);
  return { ...p, received: (prefix: string) => p.received().filter((id) => id.startsWith(prefix)) };
}

it("spreads a destination's batches over its partitions, and its live events read them all", async () => {
  const { ws, api, hook, send } = await pipeline();
  // Each part handed over alone, so each is finished in an item of its own (a run of several lists them in its record).
  for (let r = 0; r < 16; r++) {
    await send([{ type: 'track', userId: `u-${r}`, event: 'e', messageId: `spread-${r}` }]);
    await rig.rt.poller.drain();
  }

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
