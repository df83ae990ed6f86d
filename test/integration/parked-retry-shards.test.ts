import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { parkedSeq } from '../../shared/domain/delivery/batch-run';
import type { ParkedDelivery } from '../../shared/domain/delivery/records';
import { parkedItem, statsItem, userKeyPart } from '../../shared/persistence/delivery-items';
import { keys } from '../../shared/persistence/keys';
import { ParkedDeliveryRepository } from '../../shared/persistence/parked-delivery-repository';
import { deliveryRig, flowThrough, webhookPipeline } from '../support/delivery-rig';
import { parkedItems, settledItems } from '../support/partition-items';

/**
 * Parked deliveries in their users' retry partitions (a destination that is down parks every event): each goes
 * to its user's partition, behind the user's earlier ones; how each ended is kept beside them, read across the
 * partitions by the audit.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
const rig = deliveryRig();

it("parks each user's deliveries in the user's partition, in the user's order, and keeps how each ended beside them", async () => {
  const { ws, api, source, hook, send, received } = await webhookPipeline(rig);
  const userKey = 'u:ann';
  const earlier: ParkedDelivery = {
    workspaceId: ws.workspaceId,
    sourceId: source.id,
    destinationId: hook.id,
    messageId: 'old-1',
    output: 0,
    userKey,
    seq: parkedSeq('01J00000000000000000000000', 0, 0, 0),
    requests: [
      {
        version: '1',
        type: 'REST',
        method: 'POST',
        endpoint: `${rig.server.url}/hook`,
        headers: { 'Content-Type': 'application/json' },
        params: {},
        body: { JSON: { messageId: 'old-1', userId: 'ann' }, JSON_ARRAY: {}, XML: {}, FORM: {} },
        files: {},
      },
    ],
    attempts: 1,
    firstFailedAt: new Date(Date.now() - 60_000).toISOString(),
    lastError: 'HTTP 503',
    lastStatus: 503,
    status: 'waiting',
    dueAt: new Date(Date.now() - 1000).toISOString(),
  } as ParkedDelivery;
  // Parked by an earlier stream batch, with the destination's `retrying` count, which moved in the same write.
  const annsPartition = keys.deliveryRetry(ws.workspaceId, hook.id, userKeyPart(userKey), '').pk;
  await rig.rt.store.doc.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: rig.rt.store.table, Item: parkedItem(earlier) } },
        statsItem(rig.rt.store.table, ws.workspaceId, hook.id, { retrying: 1 }, [], earlier.firstFailedAt),
      ],
    }),
  );

  // Ann's next event waits behind it, parked in Ann's own partition; Bob's goes at once.
  await send([
    { type: 'track', userId: 'ann', event: 'e', messageId: 'new-1' },
    { type: 'track', userId: 'bob', event: 'e', messageId: 'bob-1' },
  ]);
  await rig.rt.poller.drain();
  expect(received()).toEqual(['bob-1']);
  const parked = await parkedItems(rig.rt.store, ws.workspaceId, hook.id);
  expect(parked.map((p) => [p.messageId, p.pk]).sort()).toEqual([
    ['new-1', annsPartition],
    ['old-1', annsPartition],
  ]);

  // The scheduler retries the earlier one, then Ann's next: in her order.
  await flowThrough(rig, 4);
  expect(received()).toEqual(['bob-1', 'old-1', 'new-1']);
  expect(await parkedItems(rig.rt.store, ws.workspaceId, hook.id)).toEqual([]);
  expect((await api('GET', `/v2/destinations/${hook.id}/outcomes`)).body).toMatchObject({ delivered: 3, retrying: 0 });
  // How each ended is kept for the audit beside Ann's parked deliveries, read across the retry partitions.
  const settled = await new ParkedDeliveryRepository(rig.rt.store).settledBetween(ws.workspaceId, hook.id, '0', '~');
  expect(settled.map((d) => [d.messageId, d.outcome])).toEqual([
    ['old-1', 'delivered'],
    ['new-1', 'delivered'],
  ]);
  expect((await settledItems(rig.rt.store, ws.workspaceId, hook.id)).map((item) => item.pk)).toEqual([annsPartition, annsPartition]);
});
