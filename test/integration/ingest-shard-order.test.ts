import { setTimeout as sleep } from 'node:timers/promises';
import { shardOfPart } from '../../shared/domain/ingestion/shards';
import { json } from '../support/destination-server';
import { deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { ingestItems } from '../support/ingest-items';

/**
 * A source of several ingest shards: one user's events from many requests arrive in the order they came,
 * while other users' flow, also when that user's delivery fails for a while (their later events wait behind
 * it, in order); every event once.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '50';
const rig = deliveryRig();

it("keeps each user's order across requests and shards, and holds only the user whose delivery fails", async () => {
  let failing = true;
  const accepted: string[] = [];
  rig.server.on('/order', (req, res) => {
    const event = req.json as { userId: string; messageId: string };
    if (event.userId === 'slow' && failing) return json(503, { error: 'busy' })(req, res);
    accepted.push(event.messageId);
    return json(200, {})(req, res);
  });
  const { ws, source, connect, batch: send } = await sourcePipeline(rig, { name: 'web', ingestShards: 8 });
  expect(source).toMatchObject({ ingestShards: 8 });
  await connect(webhookAt(rig, '/order', 'hook'));

  const users = ['slow', ...Array.from({ length: 7 }, (_, i) => `user-${i}`)];
  for (let r = 0; r < 6; r++) {
    const batch = users.map((userId) => ({ type: 'track', userId, event: 'e', messageId: `${userId}#${r}` }));
    await send(batch);
  }
  const items = (await ingestItems(rig.rt.store, ws.workspaceId, source.id)).filter((item) => item.entity === 'ingest');
  expect(new Set(items.map((item) => shardOfPart(Number(item.part)))).size).toBeGreaterThan(1);

  const delivered = () => accepted;
  await rig.rt.poller.drain();
  await rig.rt.scheduler.runNow();
  // Everyone else's events are through, in order; the failing user's first is retried and the rest wait behind it.
  for (const user of users.slice(1)) expect(delivered().filter((id) => id.startsWith(`${user}#`))).toEqual([0, 1, 2, 3, 4, 5].map((r) => `${user}#${r}`));
  expect(delivered().filter((id) => id.startsWith('slow#'))).toEqual([]);

  failing = false;
  for (let i = 0; i < 40 && delivered().filter((id) => id.startsWith('slow#')).length < 6; i++) {
    await sleep(100);
    await rig.rt.scheduler.runNow();
  }
  expect(delivered().filter((id) => id.startsWith('slow#'))).toEqual([0, 1, 2, 3, 4, 5].map((r) => `slow#${r}`));
  expect(delivered()).toHaveLength(users.length * 6);
});
