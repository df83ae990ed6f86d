import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { parkedSeq } from '../../shared/domain/delivery/batch-run';
import type { ParkedDelivery } from '../../shared/domain/delivery/records';
import { parkedItem, statsItem, userKeyPart } from '../../shared/persistence/delivery-items';
import { keys } from '../../shared/persistence/keys';
import { ParkedDeliveryRepository } from '../../shared/persistence/parked-delivery-repository';
import { deliveryRig, flowThrough, webhookPipeline } from '../support/delivery-rig';
import { itemsIn, parkedItems } from '../support/partition-items';

/**
 * Parked deliveries in their users' retry partitions (a destination that is down parks every event): a new one
 * goes to its user's partition; one parked before, in the destination's one retry partition, still holds its
 * user's later events behind it, is retried there and ends there. How each ended is kept across the settled
 * partitions, and one kept before shards is read too.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
const rig = deliveryRig();

it("parks each user's deliveries in the user's partition, and keeps a user's order behind one parked before", async () => {
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
  // Parked before retries were spread by user: in the destination's one retry partition.
  const legacy = keys.legacyDeliveryRetry(ws.workspaceId, hook.id);
  // With the destination's `retrying` count, which moved in the write that parked it.
  await rig.rt.store.doc.send(
    new TransactWriteCommand({
      TransactItems: [
        { Put: { TableName: rig.rt.store.table, Item: { ...parkedItem(earlier), pk: legacy } } },
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
  expect(parked.map((p) => [p.messageId, p.pk])).toEqual([['new-1', keys.deliveryRetry(ws.workspaceId, hook.id, userKeyPart(userKey), '').pk]]);

  // The scheduler retries the earlier one where it is, then Ann's next: in her order.
  await flowThrough(rig, 4);
  expect(received()).toEqual(['bob-1', 'old-1', 'new-1']);
  expect(await parkedItems(rig.rt.store, ws.workspaceId, hook.id)).toEqual([]);
  expect((await api('GET', `/v2/destinations/${hook.id}/outcomes`)).body).toMatchObject({ delivered: 3, retrying: 0 });
  const left = await itemsIn(rig.rt.store, [legacy]);
  expect(left).toEqual([]);
  // How each ended is kept for the audit in the settled partitions (by the seq's hash), read across them all.
  const settled = await new ParkedDeliveryRepository(rig.rt.store).settledBetween(ws.workspaceId, hook.id, '0', '~');
  expect(settled.map((d) => [d.messageId, d.outcome])).toEqual([
    ['old-1', 'delivered'],
    ['new-1', 'delivered'],
  ]);
  const sharded = await itemsIn(rig.rt.store, keys.deliverySettledPartitions(ws.workspaceId, hook.id));
  expect(sharded).toHaveLength(2);
});

it('reads how a parked delivery ended when that was kept in the one settled partition before shards', async () => {
  const { ws, source, hook } = await webhookPipeline(rig);
  const seq = parkedSeq('01J00000000000000000000001', 0, 0, 0);
  await rig.rt.store.doc.send(
    new PutCommand({
      TableName: rig.rt.store.table,
      Item: {
        pk: keys.legacyDeliverySettled(ws.workspaceId, hook.id),
        sk: seq,
        entity: 'deliverySettled',
        sourceId: source.id,
        messageId: 'before',
        output: 0,
        outcome: 'aborted',
        error: 'gone',
      },
    }),
  );
  const settled = await new ParkedDeliveryRepository(rig.rt.store).settledBetween(ws.workspaceId, hook.id, '0', '~');
  expect(settled).toEqual([{ seq, sourceId: source.id, messageId: 'before', outcome: 'aborted', error: 'gone' }]);
});
