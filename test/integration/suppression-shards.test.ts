import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';

/**
 * The suppression index in shards: each user's entry in one of the workspace's suppression partitions, by
 * the user's hash, so the consumers' reads of a busy workspace heat none; a cancel lifts them there.
 */
const rig = deliveryRig();

async function pipeline() {
  const p = await webhookPipeline(rig);
  const send = async (prefix: string, users: string[]) => {
    await p.send(users.map((userId) => ({ type: 'track', userId, event: 'e', messageId: `${prefix}-${userId}` })));
    await rig.rt.poller.drain();
  };
  const delivered = (prefix: string) =>
    p
      .received()
      .filter((id) => id.startsWith(`${prefix}-`))
      .sort();
  return { ...p, send, delivered };
}

it("keeps each suppressed user's entry in its hash's partition, and suppresses them there", async () => {
  const { ws, api, send, delivered } = await pipeline();
  const users = Array.from({ length: 12 }, (_, i) => `suppressed-${i}`);
  expect((await api('POST', '/v2/regulations', { regulationType: 'suppress', users: users.map((userId) => ({ userId })) })).status).toBe(201);

  const partitions = new Set<string>();
  for (const userId of users) {
    const key = keys.suppression(ws.workspaceId, userId);
    const { Item } = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.store.table, Key: key, ConsistentRead: true }));
    expect(Item).toBeDefined();
    partitions.add(key.pk);
  }
  expect(partitions.size).toBeGreaterThan(1);
  const { Items = [] } = await rig.rt.store.doc.send(
    new QueryCommand({
      TableName: rig.rt.store.table,
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
      ExpressionAttributeValues: { ':pk': keys.workspacePartition(ws.workspaceId), ':p': keys.suppressionPrefix },
      ConsistentRead: true,
    }),
  );
  expect(Items).toEqual([]);

  await send('a', [...users, 'free-1', 'free-2']);
  expect(delivered('a')).toEqual(['a-free-1', 'a-free-2']);
});

it("lifts a user's suppression from the user's partition when its regulation is canceled", async () => {
  const { ws, api, send, delivered } = await pipeline();
  const created = await api('POST', '/v2/regulations', { regulationType: 'suppress', users: [{ userId: 'old-user' }] });
  expect(created.status).toBe(201);

  await send('before', ['old-user', 'other-user']);
  expect(delivered('before')).toEqual(['before-other-user']);

  const id = (await api('GET', '/v2/regulations?userId=old-user')).body.data[0].id as string;
  expect((await api('DELETE', `/v2/regulations/${id}`)).status).toBe(200);
  await send('after', ['old-user']);
  expect(delivered('after')).toEqual(['after-old-user']);
  const { Item } = await rig.rt.store.doc.send(
    new GetCommand({ TableName: rig.rt.store.table, Key: keys.suppression(ws.workspaceId, 'old-user'), ConsistentRead: true }),
  );
  expect(Object.keys(Item ?? {}).filter((name) => name.startsWith('r_'))).toEqual([]);
});
