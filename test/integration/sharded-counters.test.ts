import { BatchGetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { sumCounters } from '../../shared/persistence/counters';
import { SHARDS } from '../../shared/persistence/families';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';

/**
 * A destination's and a source's counters live in shards, each in a partition of its own, and read as their
 * sum: what the outcomes and live-events views show is every shard's count together.
 */
const rig = deliveryRig();

/** The stored counter items of one owner, one per shard written. */
async function shardsOf(all: { pk: string; sk: string }[]): Promise<Record<string, unknown>[]> {
  const answer = await rig.rt.store.doc.send(new BatchGetCommand({ RequestItems: { [rig.rt.store.table]: { Keys: all, ConsistentRead: true } } }));
  return answer.Responses?.[rig.rt.store.table] ?? [];
}

it("spreads a destination's counting over several partitions and shows their sum", async () => {
  const { ws, api, hook, send } = await webhookPipeline(rig);
  // Counted already in one shard: part of the sum.
  const [first] = keys.destinationStatsShards(ws.workspaceId, hook.id);
  await rig.rt.store.doc.send(
    new PutCommand({ TableName: rig.rt.store.table, Item: { ...first, delivered: 5, aborted: 1, updatedAt: '2026-01-01T00:00:00.000Z' } }),
  );

  // Twenty requests, each its own batch, each counted in a shard drawn at random.
  for (let r = 0; r < 20; r++) {
    await send([0, 1].map((i) => ({ type: 'track', userId: `u-${r}`, event: 'e', messageId: `m-${r}-${i}` })));
    // Delivered before the next is sent: a stream batch of several requests is one run, counted in one shard.
    await rig.rt.poller.drain();
  }

  const stored = await shardsOf(keys.destinationStatsShards(ws.workspaceId, hook.id));
  expect(stored.length).toBeGreaterThan(2);
  expect(new Set(stored.map((item) => item.pk)).size).toBe(stored.length);
  expect(stored.reduce((n, item) => n + Number(item.delivered ?? 0), 0)).toBe(45);

  const outcomes = (await api('GET', `/v2/destinations/${hook.id}/outcomes`)).body;
  expect(outcomes).toMatchObject({ delivered: 45, aborted: 1, retrying: 0 });
  expect(Date.parse(outcomes.updatedAt)).toBeGreaterThan(Date.parse('2026-01-01T00:00:00.000Z'));
});

it("shows a destination's ten latest errors, however many shards its counting took", async () => {
  const { hook, api, send } = await webhookPipeline(rig, '/refusing');
  rig.server.on('/refusing', json(400, { reason: 'no such list' }));
  // Twenty refused events, each its own batch and counted on its own: a shard's errors are replaced by the
  // next write to it, so shards drawn at random would keep fewer than the latest ten.
  for (let r = 0; r < 20; r++) {
    await send([{ type: 'track', userId: `u-${r}`, event: 'e', messageId: `refused-${r}` }]);
    await rig.rt.poller.drain();
  }
  const outcomes = (await api('GET', `/v2/destinations/${hook.id}/outcomes`)).body;
  expect(outcomes.aborted).toBe(20);
  // Newest first.
  expect(outcomes.lastErrors.map((e: { messageId: string }) => e.messageId)).toEqual(Array.from({ length: 10 }, (_, k) => `refused-${19 - k}`));
});

it("reads a source's counters as the sum of its shards", async () => {
  const { ws, api, source, hook } = await webhookPipeline(rig);
  const all = keys.sourceStatsShards(ws.workspaceId, source.id);
  expect(all).toHaveLength(SHARDS.counters);
  await rig.rt.store.doc.send(
    new PutCommand({ TableName: rig.rt.store.table, Item: { ...all[0], suppressed: 2, lastSuppressedAt: '2026-01-01T00:00:00.000Z' } }),
  );
  await rig.rt.store.doc.send(
    new PutCommand({ TableName: rig.rt.store.table, Item: { ...all[3], suppressed: 3, lastSuppressedAt: '2026-02-01T00:00:00.000Z' } }),
  );
  await rig.rt.store.doc.send(new PutCommand({ TableName: rig.rt.store.table, Item: { ...all[SHARDS.counters - 1], refused: 4 } }));
  expect((await api('GET', `/v2/destinations/${hook.id}/outcomes`)).body).toMatchObject({ suppressed: 5 });
  expect((await api('GET', `/v2/sources/${source.id}/live-events`)).body).toMatchObject({ refused: { events: 4 } });
});

test("a sum keeps the ten latest errors of all shards, in time order, and each time attribute's latest value", () => {
  const error = (minute: number) => ({ at: `2026-01-01T00:${String(minute).padStart(2, '0')}:00.000Z`, messageId: `m${minute}`, error: 'boom' });
  const sum = sumCounters([
    { pk: 'a', sk: 'x', delivered: 2, lastErrors: [1, 4, 7, 10, 13, 16].map(error), updatedAt: '2026-01-01T00:16:00.000Z' },
    { pk: 'b', sk: 'x', delivered: 3, aborted: 1, lastErrors: [2, 5, 8, 11, 14].map(error), updatedAt: '2026-01-01T00:14:00.000Z' },
  ]);
  expect(sum).toEqual({ delivered: 5, aborted: 1, lastErrors: [2, 4, 5, 7, 8, 10, 11, 13, 14, 16].map(error), updatedAt: '2026-01-01T00:16:00.000Z' });
});
