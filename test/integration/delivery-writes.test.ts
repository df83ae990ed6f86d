import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { ParkedDelivery } from '../../shared/domain/delivery/records';
import { DeliveryRepository, MAX_PARKS_PER_WRITE } from '../../shared/persistence/delivery-repository';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import { parkedItems } from '../support/partition-items';
import { deliveryMachinery } from '../../shared/composition/delivery';
import { amplitudeAt, deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { json, messageIdsAt } from '../support/destination-server';
import { oneShard } from '../support/ingest-items';
import { batchChange } from '../support/batch-changes';
import { intercepting } from '../support/store-intercept';

/** A batch's writes: when its parks outnumber what one transaction holds (100 items), and when a stop cuts it short. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

// Users of one ingest shard: a request of theirs is stored, and delivered, as one batch.
const user = oneShard('user-0');
const events = (n: number) => Array.from({ length: n }, (_, i) => ({ type: 'track', userId: user(`user-${i}`), event: 'e', messageId: `m-${i}` }));

it('parks every event of a failed chunk larger than one transaction holds, counts each once, and delivers each on its retry', async () => {
  const p = await sourcePipeline(rig);
  const d = await p.connect(amplitudeAt(rig, '/big', 'amp', 'k'));
  let failing = true;
  rig.server.on('/big', (req, res) => json(failing ? 503 : 200, {})(req, res));
  const size = MAX_PARKS_PER_WRITE + 20;
  await p.batch(events(size));
  await rig.rt.poller.drain();
  // One request of more events than one transaction parks, answered 503: every event parked, in two transactions.
  expect(rig.server.received.filter((r) => r.path === '/big/2/httpapi')).toHaveLength(1);
  expect(await p.outcomes(d)).toMatchObject({ delivered: 0, retrying: size, aborted: 0 });
  failing = false;
  for (let i = 0; i < 5; i++) {
    await sleep(40);
    await rig.rt.scheduler.runNow();
  }
  expect(await p.outcomes(d)).toMatchObject({ delivered: size, retrying: 0, aborted: 0 });
  // 110 events parked, then each delivered: near jest's 30 s on a busy 2-core machine.
}, 90_000);

it('parks and counts each event once when a split write is made again after dying between its transactions', async () => {
  const ref = { workspaceId: 'ws-split', sourceId: 'src', destinationId: 'dst', requestId: '01KSPLIT000000000000000000', part: 0 };
  const parks: ParkedDelivery[] = Array.from({ length: MAX_PARKS_PER_WRITE + 20 }, (_, i) => ({
    workspaceId: ref.workspaceId,
    sourceId: ref.sourceId,
    destinationId: ref.destinationId,
    messageId: `m-${i}`,
    output: 0,
    userKey: `u:user-${i}`,
    seq: `${ref.requestId}#000000#${String(i).padStart(6, '0')}#000000`,
    requests: [],
    attempts: 1,
    firstFailedAt: new Date().toISOString(),
    lastError: 'destination answered 503',
    lastStatus: 503,
    status: 'waiting',
    dueAt: new Date(Date.now() + 60_000).toISOString(),
  }));
  const deliveries = new DeliveryRepository(rig.rt.store);
  const guard = { ref, owner: 'splitter', prior: await deliveries.readBatch(ref), established: false };
  const change = {
    position: { progress: parks.length, output: 0 },
    totals: { delivered: 0, filtered: 0, aborted: 0 },
    trail: `${parks.length}r`,
    leaseUntil: new Date(Date.now() + 60_000).toISOString(),
    parks,
  };
  // The process dies after the parks that went ahead, before the batch's own write.
  const dieOnBatchWrite = (_: unknown, input: Record<string, unknown>) => {
    const items = (input as { TransactItems?: { Update?: { Key: { sk: string } } }[] }).TransactItems;
    if (items?.some((item) => item.Update?.Key.sk === `${ref.requestId}#0`)) throw Object.assign(new Error('killed'), { name: 'InternalServerError' });
  };
  await intercepting(dieOnBatchWrite, () => expect(deliveries.writeBatch(guard, change)).rejects.toThrow('killed'), rig.rt.store);
  const parked = () => parkedItems(rig.rt.store, ref.workspaceId, ref.destinationId);
  const retrying = async () => (await deliveries.outcomes(ref.workspaceId, ref.destinationId))?.retrying;
  expect(await parked()).toHaveLength(MAX_PARKS_PER_WRITE);
  expect(await deliveries.readBatch(ref)).toEqual({ kind: 'absent' });
  expect(await retrying()).toBe(MAX_PARKS_PER_WRITE);
  // Made again (the resumed batch parks the same events under the same keys): each written and counted once.
  expect(await deliveries.writeBatch(guard, change)).toMatchObject({ established: true });
  expect(await parked()).toHaveLength(parks.length);
  expect(await retrying()).toBe(parks.length);
});

it('stops a batch at its next recorded write when the process stops, gives its claim back due at once, and resumes it from there', async () => {
  const p = await sourcePipeline(rig);
  const d = await p.connect(webhookAt(rig, '/slow', 'slow'));
  // Each answer takes 200 ms: the whole batch would take 2 s.
  rig.server.on('/slow', (req, res) => void setTimeout(() => json(200, {})(req, res), 200));
  const sent = () => messageIdsAt(rig.server, '/slow');
  await p.batch(events(10));
  const since = Date.now();
  while (sent().length < 2 && Date.now() - since < 10_000) await sleep(10);
  // The stop waits for the send in flight, not for the rest of the batch.
  await deliveryMachinery().lanes.stop();
  expect(sent().length).toBeLessThanOrEqual(3);
  const { parts } = await new IngestRepository(rig.rt.store).recent(p.ws.workspaceId, p.source.id, 1);
  const batch = await rig.rt.store.doc.send(
    new GetCommand({ TableName: rig.rt.tableName, Key: keys.deliveryBatch(p.ws.workspaceId, d, parts[0]!.requestId, parts[0]!.part!), ConsistentRead: true }),
  );
  expect(batch.Item).toMatchObject({ status: 'sending', progress: sent().length, gsi1pk: expect.stringMatching(/^DELIVERY#DUE#\d+$/) });
  expect(Date.parse(String(batch.Item!.leaseUntil))).toBeLessThanOrEqual(Date.now());
  // The next run takes it at once, from where it stopped: each event once.
  await rig.rt.scheduler.runNow();
  expect(sent()).toEqual(events(10).map((e) => e.messageId));
  expect(await p.outcomes(d)).toMatchObject({ delivered: 10, retrying: 0 });
});

it("takes no more of the scheduler's round once the process stops: the retries not begun stay due", async () => {
  const p = await sourcePipeline(rig);
  const d = await p.connect(webhookAt(rig, '/later', 'later'));
  // Every event fails once, then each retry is answered after 200 ms.
  let failing = true;
  rig.server.on('/later', (req, res) => (failing ? json(503, {})(req, res) : void setTimeout(() => json(200, {})(req, res), 200)));
  await p.batch(events(6));
  await rig.rt.poller.drain();
  expect(await p.outcomes(d)).toMatchObject({ delivered: 0, retrying: 6 });
  failing = false;
  await sleep(50);
  const retried = () => rig.server.received.filter((r) => r.path === '/later').length - 6;
  const round = rig.rt.scheduler.runNow();
  const since = Date.now();
  while (retried() < 1 && Date.now() - since < 10_000) await sleep(10);
  await deliveryMachinery().lanes.stop();
  await round;
  expect(retried()).toBeLessThanOrEqual(2);
  expect((await p.outcomes(d)).retrying).toBeGreaterThanOrEqual(4);
  await rig.rt.scheduler.runNow();
  expect(await p.outcomes(d)).toMatchObject({ delivered: 6, retrying: 0 });
});

it('finishes batches together in one transaction with their counters summed, leaving out one another owner took meanwhile', async () => {
  const deliveries = new DeliveryRepository(rig.rt.store);
  const refOf = (k: number) => ({ workspaceId: 'ws-together', sourceId: 'src', destinationId: 'dst', requestId: `01KTOGETHER00000000000000${k}`, part: 0 });
  const at = () => new Date().toISOString();
  const change = (delivered: number) => batchChange(delivered);
  const guards = [1, 2, 3].map((k) => ({ ref: refOf(k), owner: `owner-${k}`, prior: { kind: 'absent' as const }, established: false }));
  for (const [k, guard] of guards.entries()) Object.assign(guard, await deliveries.writeBatch(guard, change(k + 1)));
  // Another owner takes the second over (its lease ran out, say).
  await deliveries.writeBatch({ ...guards[1]!, owner: 'another', prior: await deliveries.readBatch(refOf(2)), established: false }, change(2));
  const finish = { samples: [], errors: [], at: at() };
  const finished = await deliveries.finishBatches(guards.map((guard, k) => ({ guard, change: { ...change(k + 1), finish } })));
  expect(finished.map((f) => f !== undefined)).toEqual([true, false, true]);
  expect(await deliveries.readBatch(refOf(1))).toMatchObject({ kind: 'done' });
  expect(await deliveries.readBatch(refOf(2))).toMatchObject({ kind: 'sending', owner: 'another' });
  expect(await deliveries.readBatch(refOf(3))).toMatchObject({ kind: 'done' });
  expect(await deliveries.outcomes('ws-together', 'dst')).toMatchObject({ delivered: 4 });
  // Each written finished in one run, whose record counted them: done because the run is.
  const item = async (k: number) =>
    (await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.tableName, Key: keys.deliveryBatch('ws-together', 'dst', refOf(k).requestId, 0) }))).Item;
  const [first, third] = [await item(1), await item(3)];
  expect(first).toMatchObject({ status: 'finishing', runId: third!.runId });
  const run = keys.deliveryRun('ws-together', 'dst', String(first!.runId));
  expect((await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.tableName, Key: run }))).Item).toMatchObject({ status: 'done' });
  expect(await item(2)).toMatchObject({ status: 'sending', owner: 'another' });
});
