import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { deliveryMachinery } from '../../shared/composition/delivery';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { keys } from '../../shared/persistence/keys';
import { recordedBeforeDying } from '../support/batch-changes';
import { deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json, messageIdsAt } from '../support/destination-server';
import { ingestItems, oneShard } from '../support/ingest-items';
import { itemsIn } from '../support/partition-items';
import { handOver } from '../support/stream-records';
import { intercepting } from '../support/store-intercept';

/**
 * A run its stream consumer stops waiting for is made durable as one held run (not an index entry a batch),
 * ended by the run; one whose process died is taken over by the scheduler, each batch resumed where it stands.
 */
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
// A send that hangs hangs until the test releases it (not parked on a time-out meanwhile).
const rig = deliveryRig({ destinationTimeoutMs: 60_000 });

/** A source and `connect`, which connects a webhook at `path` to it (its id). */
async function pipeline(path: string) {
  const p = await sourcePipeline(rig);
  return { ...p, connect: () => p.connect(webhookAt(rig, path)) };
}

const sent = (path: string) => messageIdsAt(rig.server, path);

describe('held runs', () => {
  it('holds the batches of a stream batch its consumer stops waiting for as one item, ended by their run', async () => {
    const p = await pipeline('/slow');
    const user = oneShard('u');
    // Three requests, each stored as one part: three batches for the destination, in one stream batch.
    for (const r of [0, 1, 2]) await p.batch([0, 1].map((i) => ({ type: 'track', userId: user(`u${r}${i}`), event: 'e', messageId: `m-${r}-${i}` })));
    await rig.rt.poller.drain();
    const d = await p.connect();
    let release = () => {};
    rig.server.on('/slow', (req, res) => {
      if ((req.json as { messageId: string }).messageId !== 'm-0-1') return json(200, {})(req, res);
      release = () => json(200, {})(req, res);
    });
    const items = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    expect(items).toHaveLength(3);
    expect(await handOver(items, 'r')).toEqual({ batchItemFailures: [] });
    // The records are let go while m-0-1 hangs: one held run covers the three batches, in the scheduler's index.
    const deliveries = new DeliveryRepository(rig.rt.store);
    const [held, ...others] = await deliveries.heldRuns(p.ws.workspaceId, d);
    expect(others).toEqual([]);
    expect(held!.parts).toEqual(items.map((item) => ({ requestId: item.requestId, part: item.part })));
    const batches = await itemsIn(rig.rt.store, keys.deliveryBatchPartitions(p.ws.workspaceId, d));
    // The batches sent from have items (the other users' went beside m-0-1, each written after its first send, its
    // last send's outcome left to the run's finish), and no batch has an entry in the index of its own.
    expect(batches.map((b) => [b.requestId, b.status]).sort()).toEqual(items.map((item) => [item.requestId, 'sending']).sort());
    expect(sent('/slow').sort()).toEqual(['m-0-0', 'm-0-1', 'm-1-0', 'm-1-1', 'm-2-0', 'm-2-1']);
    expect(batches.filter((b) => b.gsi1pk !== undefined).map((b) => [b.requestId, b.status, b.gsi1sk])).toEqual([]);
    release();
    await deliveryMachinery().lanes.idle();
    expect(sent('/slow').sort()).toEqual(['m-0-0', 'm-0-1', 'm-1-0', 'm-1-1', 'm-2-0', 'm-2-1']);
    expect(await deliveries.heldRuns(p.ws.workspaceId, d)).toEqual([]);
    expect(await p.outcomes(d)).toMatchObject({ delivered: 6, retrying: 0, aborted: 0 });
  });

  it('writes each batch of a run once after its last send (finished in the run), and counts the run in one transaction', async () => {
    const p = await pipeline('/once');
    const user = oneShard('w');
    for (const r of [0, 1, 2, 3]) await p.batch([{ type: 'track', userId: user(`w${r}`), event: 'e', messageId: `o-${r}` }]);
    await rig.rt.poller.drain();
    const d = await p.connect();
    const items = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    // Each delivery write to the destination's batches or runs, and each transaction, as the handler sends it. A
    // hold is left out: on a loaded machine the consumer may stop waiting for the lane and hold the run meanwhile.
    const writes: string[] = [];
    type Keyed = { Key?: { pk?: string; sk?: string }; Item?: { pk?: string } };
    const ours = (keyed: Keyed) => {
      const pk = String(keyed.Key?.pk ?? keyed.Item?.pk ?? '');
      return pk.includes(`#DESTINATION#${d}#`) && !pk.includes('#HOLD#');
    };
    const countRunWrites = (command: string | undefined, request: Record<string, unknown>) => {
      const input = request as Keyed & { TransactItems?: Record<string, Keyed>[] };
      if (input.TransactItems?.some((item) => Object.values(item).some(ours))) writes.push('transaction');
      else if (ours(input)) writes.push(`${command} ${input.Key?.sk ?? ''}`);
    };
    await intercepting(countRunWrites, async () => {
      expect(await handOver(items, 'o')).toEqual({ batchItemFailures: [] });
      await deliveryMachinery().lanes.idle();
    });
    expect(sent('/once').sort()).toEqual(['o-0', 'o-1', 'o-2', 'o-3']);
    // A write a batch (its send's outcome and its finish at once), not two; one transaction for the run's counting.
    expect(writes.filter((w) => w !== 'transaction').sort()).toEqual(items.map((item) => `UpdateItemCommand ${item.requestId}#${item.part}`).sort());
    expect(writes.filter((w) => w === 'transaction')).toHaveLength(1);
    expect(await p.outcomes(d)).toMatchObject({ delivered: 4, retrying: 0, aborted: 0 });
  });

  it("keeps a stream batch's hundred parts in under a kilobyte (every write of a hold is an index write of its size)", async () => {
    const deliveries = new DeliveryRepository(rig.rt.store);
    // Five requests of 20 users each at 128 shards: about 19 parts each.
    const requests = [
      '01KHOLDA000000000000000000',
      '01KHOLDB000000000000000000',
      '01KHOLDC000000000000000000',
      '01KHOLDD000000000000000000',
      '01KHOLDE000000000000000000',
    ];
    const parts = Array.from({ length: 100 }, (_, i) => ({ requestId: requests[i % 5]!, part: Math.floor(i / 5) }));
    const held = { workspaceId: 'ws-hold-size', sourceId: 'src', destinationId: 'dst', runId: 'run-size', owner: 'o', leaseUntil: new Date().toISOString() };
    await deliveries.holdRun({ ...held, parts });
    const { Item } = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.tableName, Key: keys.deliveryHold('ws-hold-size', 'dst', 'run-size') }));
    const bytes = Object.entries(Item!).reduce((n, [name, value]) => n + name.length + (value instanceof Uint8Array ? value.length : String(value).length), 0);
    expect(bytes).toBeLessThan(1024);
    expect((await deliveries.heldRuns('ws-hold-size', 'dst'))[0]!.parts).toEqual(parts);
  });

  it('resumes a held run whose process died once its lease runs out: each batch from where it stands, once, and ends it', async () => {
    const p = await pipeline('/resumed');
    const user = oneShard('v');
    for (const r of [0, 1, 2]) await p.batch([0, 1, 2].map((i) => ({ type: 'track', userId: user(`v${r}${i}`), event: 'e', messageId: `n-${r}-${i}` })));
    await rig.rt.poller.drain();
    // Connected afterwards: the stream consumer sent nothing; the run below is a dead process's.
    const d = await p.connect();
    const items = await ingestItems(rig.rt.store, p.ws.workspaceId, p.source.id);
    const refs = items.map((item) => ({
      workspaceId: p.ws.workspaceId,
      sourceId: p.source.id,
      destinationId: d,
      requestId: String(item.requestId),
      part: Number(item.part),
    }));
    const deliveries = new DeliveryRepository(rig.rt.store);
    const leaseEnds = new Date(Date.now() + 1500).toISOString();
    await deliveries.holdRun({
      ...refs[0]!,
      runId: 'dead-run',
      owner: 'dead',
      leaseUntil: leaseEnds,
      parts: refs.map(({ requestId, part }) => ({ requestId, part })),
    });
    // It finished the first batch's first event (recorded) and had begun nothing else.
    expect(await recordedBeforeDying(deliveries, refs[0]!, 'dead', 1, leaseEnds)).toMatchObject({ established: true });
    await rig.rt.scheduler.runNow();
    expect(sent('/resumed')).toEqual([]);
    await sleep(Date.parse(leaseEnds) - Date.now() + 20);
    await rig.rt.scheduler.runNow();
    expect(sent('/resumed').sort()).toEqual(['n-0-1', 'n-0-2', 'n-1-0', 'n-1-1', 'n-1-2', 'n-2-0', 'n-2-1', 'n-2-2']);
    expect(await deliveries.heldRuns(p.ws.workspaceId, d)).toEqual([]);
    await rig.rt.scheduler.runNow();
    expect(sent('/resumed')).toHaveLength(8);
    // Counted once each, the dead process's recorded event with its batch.
    expect(await p.outcomes(d)).toMatchObject({ delivered: 9, retrying: 0, aborted: 0 });
  });
});
