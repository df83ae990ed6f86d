import { setTimeout as sleep } from 'node:timers/promises';
import { shardOfPart, shardOfUser } from '../../shared/domain/ingestion/shards';
import { userKeyOf } from '../../shared/domain/users';
import { deliveryHandler, streamRecordOf } from '../support/stream-records';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { ingestItems } from '../support/ingest-items';

/**
 * A source's shards grown with events in flight: a user whose shard changes keeps their order (their events
 * of the new shard wait for their old shard's events from before the switch), a user who stays is not held,
 * and nothing is lost or sent twice. The stream here is handed over by the test, in the order a busy stream
 * of several shards could take: the new shard's records first.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
process.env.WEIR_SHARD_SWITCH_DELAY_MS = '6000'; // past the ingestion process's 5 s of its source
process.env.WEIR_SHARD_DRAIN_GRACE_MS = '500';
const rig = deliveryRig();

const delivery = deliveryHandler;
const recordOf = (item: Record<string, unknown>, n: number) => streamRecordOf(item, `switch-${n}`, n);
/** A user (by id) whose shard of `from` differs from theirs of `to` when `moved`, is the same when not. */
const userWhere = (moved: boolean, from: number, to: number) =>
  Array.from({ length: 500 }, (_, i) => `user-${i}`).find((id) => {
    const key = userKeyOf({ userId: id });
    return (shardOfUser(key, from) !== shardOfUser(key, to)) === moved;
  })!;

it("keeps a moved user's order across a change of the source's shards, holds no one else, and loses nothing", async () => {
  const p = await webhookPipeline(rig);
  await rig.rt.poller.stop(); // the test hands the stream's records over itself
  expect(p.source).not.toHaveProperty('ingestShards'); // one shard, as before shards
  const moved = userWhere(true, 1, 32);
  const stays = userWhere(false, 1, 32);
  await p.send([{ type: 'track', userId: moved, event: 'e', messageId: 'moved-1' }]);

  const grown = await p.api('PATCH', `/v2/sources/${p.source.id}`, { ingestShards: 32 });
  expect(grown.status).toBe(200);
  expect(grown.body.source).toMatchObject({ ingestShards: 32, ingestShardsChange: { previous: 1 } });
  const switchAt = Date.parse(grown.body.source.ingestShardsChange.at);
  await p.send([{ type: 'track', userId: moved, event: 'e', messageId: 'moved-before-switch' }]);
  await sleep(switchAt - Date.now() + 100);
  await p.send([
    { type: 'track', userId: moved, event: 'e', messageId: 'moved-2' },
    { type: 'track', userId: stays, event: 'e', messageId: 'stays-1' },
  ]);

  const items = (await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id)).filter((item) => item.entity === 'ingest');
  const shardOf = (id: string, shards: number): number => shardOfUser(userKeyOf({ userId: id }), shards);
  // Before the switch, both of the moved user's requests went to the one shard; after it, to their shard of 32.
  expect(items.map((item) => [shardOfPart(Number(item.part)), item.shards])).toEqual([
    [0, 1],
    [0, 1],
    ...[
      [shardOf(moved, 32), 32],
      [shardOf(stays, 32), 32],
    ].sort((a, b) => a[0]! - b[0]!),
  ]);
  const after = items.slice(2);
  const movedAfter = after.find((item) => shardOfPart(Number(item.part)) === shardOf(moved, 32))!;
  const staysAfter = after.find((item) => shardOfPart(Number(item.part)) === shardOf(stays, 32))!;

  // The new shards' records come first: the user who stays goes at once, the moved one waits for their old shard.
  expect(await delivery()({ Records: [recordOf(staysAfter, 3)] })).toEqual({ batchItemFailures: [] });
  expect(p.received()).toEqual(['stays-1']);
  const waiting = delivery()({ Records: [recordOf(movedAfter, 4)] });
  await sleep(1500);
  expect(p.received()).toEqual(['stays-1']);
  expect(await delivery()({ Records: [recordOf(items[0]!, 1), recordOf(items[1]!, 2)] })).toEqual({ batchItemFailures: [] });
  expect(await waiting).toEqual({ batchItemFailures: [] });
  expect(p.received()).toEqual(['stays-1', 'moved-1', 'moved-before-switch', 'moved-2']);

  // Handed over again (as a stream may), nothing is sent twice.
  expect(await delivery()({ Records: items.map((item, n) => recordOf(item, 10 + n)) })).toEqual({ batchItemFailures: [] });
  expect(p.received()).toHaveLength(4);
  // Shards only grow; and a change made before the last one's switch is over would lose track of it.
  const smaller = await p.api('PATCH', `/v2/sources/${p.source.id}`, { ingestShards: 16 });
  expect([smaller.status, smaller.body.error]).toEqual([400, "ingestShards: must not be less than the source's 32 (shards only grow)"]);
  expect((await p.api('PATCH', `/v2/sources/${p.source.id}`, { ingestShards: 48 })).status).toBe(200);
  const again = await p.api('PATCH', `/v2/sources/${p.source.id}`, { ingestShards: 64 });
  expect(again.status).toBe(409);
  expect(again.body.error).toMatch(/^ingestShards: the source.s change to 48 shards applies at /);
});
