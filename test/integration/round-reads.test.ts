import { randomUUID } from 'node:crypto';
import { PutCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { statsItem } from '../../shared/persistence/delivery-items';
import { keys } from '../../shared/persistence/keys';
import { ParkedDeliveryRepository } from '../../shared/persistence/parked-delivery-repository';
import { deliveryRig } from '../support/delivery-rig';
import { countingStore } from '../support/store-reads';

/**
 * What a delivery round reads, and how often, with the changes it must see at once: whether anything is
 * parked at a destination (every round), and the suppression index (every stream batch).
 */
const rig = deliveryRig();
const counting = () => countingStore(rig.rt.dynamoEndpoint, rig.rt.tableName);

it("reads a destination's counter shards every round, and its count from before shards once a minute: it never changes", async () => {
  const { store, reads, reset } = counting();
  const workspaceId = `ws-${randomUUID()}`;
  const destinationId = `d-${randomUUID()}`;
  const parked = new ParkedDeliveryRepository(store);
  const write = (retrying: number) =>
    rig.rt.store.doc.send(
      new TransactWriteCommand({ TransactItems: [statsItem(store.table, workspaceId, destinationId, { retrying }, [], new Date().toISOString())] }),
    );
  // One delivery parked before counters were sharded: the count in the workspace's partition.
  await rig.rt.store.doc.send(new PutCommand({ TableName: store.table, Item: { ...keys.legacyDestinationStats(workspaceId, destinationId), retrying: 1 } }));
  expect(await parked.anyParked(workspaceId, destinationId)).toBe(true);
  // It ends: the counter moves in a shard (-1), and nothing is parked any more; a new one parks (+1).
  await write(-1);
  expect(await parked.anyParked(workspaceId, destinationId)).toBe(false);
  await write(1);
  expect(await parked.anyParked(workspaceId, destinationId)).toBe(true);
  const workspacePartition = reads().filter((key) => key.pk === keys.workspacePartition(workspaceId));
  expect(workspacePartition).toHaveLength(1);
  expect(reads().filter((key) => key.pk !== keys.workspacePartition(workspaceId))).toHaveLength(3 * 32);
  reset();
});
