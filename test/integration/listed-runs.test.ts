import { gunzipSync } from 'node:zlib';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { keys } from '../../shared/persistence/keys';
import { amplitudeAt, amplitudeRequestsAt, deliveryRig, flowThrough, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { messageIdsAt } from '../support/destination-server';
import { ingestItems } from '../support/ingest-items';
import { itemsIn } from '../support/partition-items';
import { handOver } from '../support/stream-records';

/**
 * A stream delivery's run lists the parts it saw first in its record (delivery-runs.ts), in place of an item a
 * part: whoever looks for one later (the records handed over again, the scheduler taking the run's hold over,
 * the audit) finds it done there, and nothing goes twice.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

const webhookPath = '/listed-hook';
const amplitudePath = '/listed-amp';

async function pipeline() {
  const p = await sourcePipeline(rig, { ingestShards: 16 });
  const ids = [await p.connect(webhookAt(rig, webhookPath, 'hook')), await p.connect(amplitudeAt(rig, amplitudePath, 'amp'))];
  return { ...p, ids };
}

const sent = () => ({
  hook: messageIdsAt(rig.server, webhookPath),
  amp: amplitudeRequestsAt(rig, amplitudePath).flatMap((events) => events.map((e) => e.insert_id)),
});

it("finds a stream batch's parts listed in their runs' records: handed over again, or a run's hold taken over after its record, nothing goes twice", async () => {
  const p = await pipeline();
  // One request of 24 users in 16 shards: parts written side by side, handed over together.
  await p.batch(Array.from({ length: 24 }, (_, i) => ({ type: 'track', userId: `user-${i}`, event: 'e', messageId: `l-${i}` })));
  await flowThrough(rig);
  const ids = Array.from({ length: 24 }, (_, i) => `l-${i}`).sort();
  expect(sent().hook.sort()).toEqual(ids);
  expect(sent().amp.sort()).toEqual(ids);
  const items = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
  const parts = items.map((item) => ({ requestId: String(item.requestId), part: Number(item.part) }));
  const deliveries = new DeliveryRepository(rig.rt.store);
  for (const d of p.ids) {
    // The parts of runs of more than one have no item at the destination: their run's record lists them.
    const own = (await itemsIn(rig.rt.store, keys.deliveryBatchPartitions(p.ws.workspaceId, d))).filter((item) => item.entity === 'deliveryBatch');
    expect(own.length).toBeLessThan(parts.length);
    const records = await deliveries.batchesOf(p.ws.workspaceId, d, parts);
    expect(records.map((r) => `${r.requestId}#${r.part}:${r.status}`).sort()).toEqual(parts.map((q) => `${q.requestId}#${q.part}:done`).sort());
  }

  // The same records handed over again (a stream batch redelivered): each part found done in its run, sent nowhere.
  expect(await handOver(items, 'again')).toEqual({ batchItemFailures: [] });
  await flowThrough(rig);

  // Each listing run's hold, as a process that died between the run's record and the hold's end leaves it, taken over.
  for (const d of p.ids) {
    const runs = (await itemsIn(rig.rt.store, keys.deliveryRunPartitions(p.ws.workspaceId, d))).filter((run) => run.listed !== undefined);
    expect(runs.length).toBeGreaterThan(0);
    // Each hold covers its run's parts (the stream may have handed the parts over in more than one batch).
    for (const run of runs)
      await deliveries.holdRun({
        workspaceId: p.ws.workspaceId,
        sourceId: p.source.id,
        destinationId: d,
        runId: String(run.sk).slice('RUN#'.length),
        owner: 'dead',
        leaseUntil: new Date(Date.now() - 1000).toISOString(),
        parts: (JSON.parse(gunzipSync(run.listed as Uint8Array).toString('utf8')) as [string, number][]).map(([requestId, part]) => ({ requestId, part })),
      });
  }
  await rig.rt.scheduler.runNow();
  for (const d of p.ids) {
    expect(await deliveries.heldRuns(p.ws.workspaceId, d)).toEqual([]);
    expect(await p.outcomes(d)).toMatchObject({ delivered: 24, retrying: 0, aborted: 0 });
  }
  expect(sent().hook).toHaveLength(24);
  expect(sent().amp).toHaveLength(24);
});
