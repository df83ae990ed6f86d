import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { batchIdOf, type BatchGuard } from '../../shared/domain/delivery/records';
import { DeliveryRepository } from '../../shared/persistence/delivery-repository';
import { keys } from '../../shared/persistence/keys';
import type { TableClient } from '../../shared/persistence/table-client';
import { fileRuntime } from '../support/runtime';
import { batchChange } from '../support/batch-changes';

/**
 * Batches finished together as a run (delivery-runs.ts): each written finished on its own, one transaction
 * counts them with the run's record. Exact when a takeover meets a run whose counting has not gone through.
 */
const rt = fileRuntime({ schedulerIntervalMs: 0 });

const change = (delivered: number, finish = false) => batchChange(delivered, { finish });

/** A store whose transactions wait for `open()`: a run's counting held back while others act. */
function gatedStore(store: TableClient) {
  let open = () => {};
  const gate = new Promise<void>((resolve) => (open = resolve));
  const send = (async (command: unknown) => {
    if (command instanceof TransactWriteCommand) await gate;
    return store.doc.send(command as never);
  }) as TableClient['doc']['send'];
  return { store: { table: store.table, doc: { send } as unknown as TableClient['doc'] }, open };
}

it('counts a run once when a takeover meets it before its counting: the run counts nothing, each batch is counted by whoever finishes it', async () => {
  const workspaceId = 'ws-runs';
  const refOf = (k: number) => ({ workspaceId, sourceId: 'src', destinationId: 'dst', requestId: `01KRUNS0000000000000000000${k}`, part: 0 });
  const plain = new DeliveryRepository(rt.store);
  const gated = gatedStore(rt.store);
  const original = new DeliveryRepository(gated.store);
  const guards: BatchGuard[] = [1, 2, 3].map((k) => ({ ref: refOf(k), owner: 'original', prior: { kind: 'absent' }, established: false }));
  // Its batches are written finished; the transaction that counts them waits.
  const finishing = original.finishBatches(guards.map((guard, k) => ({ guard, change: change(k + 1, true) })));
  let states = await plain.readBatches(guards.map((g) => g.ref));
  for (let i = 0; i < 10 && [...states.values()].some((s) => s.kind === 'absent'); i++) {
    await sleep(50);
    states = await plain.readBatches(guards.map((g) => g.ref));
  }
  // Not done yet: its run has no record.
  const second = await plain.readBatch(refOf(2));
  expect(second).toMatchObject({ kind: 'sending', owner: 'original', runId: expect.any(String) });
  // Another takes the second over (its lease ran out, say): the run is ended as abandoned first.
  const taker: BatchGuard = { ref: refOf(2), owner: 'taker', prior: second, established: false };
  expect(await plain.writeBatch(taker, change(2))).toMatchObject({ established: true });
  const run = keys.deliveryRun(workspaceId, 'dst', second.kind === 'sending' ? second.runId! : '');
  expect((await rt.store.doc.send(new GetCommand({ TableName: rt.tableName, Key: run, ConsistentRead: true }))).Item).toMatchObject({ status: 'abandoned' });
  // The run's counting comes: refused; the original finishes what is still its own, one by one.
  gated.open();
  expect((await finishing).map((f) => f !== undefined)).toEqual([true, false, true]);
  expect(await plain.readBatch(refOf(1))).toMatchObject({ kind: 'done' });
  expect(await plain.readBatch(refOf(3))).toMatchObject({ kind: 'done' });
  expect(await plain.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 4 });
  // The taker finishes the second: counted once, by it.
  Object.assign(taker, { established: true });
  expect(await plain.finishBatches([{ guard: taker, change: change(2, true) }])).toEqual([expect.objectContaining({ established: true })]);
  expect(await plain.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 6 });
});

it("leaves a batch to the run that counted it: a takeover after the run's record finds it done", async () => {
  const workspaceId = 'ws-runs-done';
  const refOf = (k: number) => ({ workspaceId, sourceId: 'src', destinationId: 'dst', requestId: `01KRUNSDONE000000000000000${k}`, part: 0 });
  const plain = new DeliveryRepository(rt.store);
  const gated = gatedStore(rt.store);
  const guards: BatchGuard[] = [1, 2].map((k) => ({ ref: refOf(k), owner: 'original', prior: { kind: 'absent' }, established: false }));
  // Its lease already run out: an index entry at it is due at once.
  const leaseUntil = new Date(Date.now() - 1000).toISOString();
  const finishing = new DeliveryRepository(gated.store).finishBatches(guards.map((guard) => ({ guard, change: batchChange(1, { finish: true, leaseUntil }) })));
  let first = await plain.readBatch(refOf(1));
  for (let i = 0; i < 10 && first.kind === 'absent'; i++) {
    await sleep(50);
    first = await plain.readBatch(refOf(1));
  }
  // Read before the run counted, and put in the scheduler's index by another at its lease.
  expect(first).toMatchObject({ kind: 'sending', runId: expect.any(String) });
  await plain.realignBatch(refOf(1), first.kind === 'sending' ? first.leaseUntil : '');
  gated.open();
  expect((await finishing).every((f) => f !== undefined)).toBe(true);
  expect(await plain.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 2 });
  // Done with its run, still in the index (the scheduler takes it out); a takeover from the old read does nothing.
  expect(await plain.readBatch(refOf(1))).toEqual({ kind: 'done', trail: '1d', indexed: true });
  expect(await plain.writeBatch({ ref: refOf(1), owner: 'late', prior: first, established: false }, change(1))).toBeUndefined();
  // The scheduler's round finds the entry due, reads the batch done, and takes the entry out.
  await rt.scheduler.runNow();
  expect(await plain.readBatch(refOf(1))).toEqual({ kind: 'done', trail: '1d' });
  expect(await plain.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 2 });
  // The run's record keeps its batches' samples for the live-events view; the batches keep none.
  expect(await plain.recentBatches(workspaceId, 'dst', 50)).toEqual([
    {
      finishedAt: expect.any(String),
      samples: [
        { messageId: 'm-1', outcome: 'delivered', status: 200 },
        { messageId: 'm-1', outcome: 'delivered', status: 200 },
      ],
    },
  ]);
});

it('counts a batch written finished in its run also when the run has no other batch left to finish', async () => {
  const workspaceId = 'ws-runs-alone';
  const ref = { workspaceId, sourceId: 'src', destinationId: 'dst', requestId: '01KRUNSALONE00000000000000', part: 0 };
  const deliveries = new DeliveryRepository(rt.store);
  const guard: BatchGuard = { ref, owner: 'me', prior: { kind: 'absent' }, established: false };
  const finished = { ...change(3, true), run: '01KRUNALONE000000000000000' };
  Object.assign(guard, await deliveries.writeBatch(guard, finished));
  // Written finished, not counted: its run has not counted it.
  expect(await deliveries.readBatch(ref)).toMatchObject({ kind: 'sending', runId: finished.run });
  expect(await deliveries.outcomes(workspaceId, 'dst')).toBeUndefined();
  expect(await deliveries.finishBatches([{ guard, change: finished, written: true }], finished.run)).toEqual([expect.objectContaining({ established: true })]);
  expect(await deliveries.readBatch(ref)).toMatchObject({ kind: 'done' });
  expect(await deliveries.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 3 });
});

it("lists batches no item holds in their run's record: no write of their own, each read back done through the run a lookup names, and by the audit", async () => {
  const workspaceId = 'ws-runs-listed';
  // Request ids are ULIDs of when the parts were stored; the run's, of when it ran.
  const requestIds = [1, 2, 3].map(() => ulid());
  const runId = `${ulid()}.src`;
  const refOf = (k: number) => ({ workspaceId, sourceId: 'src', destinationId: 'dst', requestId: requestIds[k - 1]!, part: k });
  const deliveries = new DeliveryRepository(rt.store);
  const guards: BatchGuard[] = [1, 2, 3].map((k) => ({ ref: refOf(k), owner: 'me', prior: { kind: 'absent' }, established: false, listable: true }));
  const finished = await deliveries.finishBatches(
    guards.map((guard, k) => ({ guard, change: change(k + 1, true) })),
    runId,
  );
  expect(finished.every((f) => f?.established)).toBe(true);
  expect(await deliveries.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 6 });
  // No item of their own: absent where an item would be, done in the run their lookup names.
  expect(await deliveries.readBatch(refOf(2))).toEqual({ kind: 'absent' });
  expect(await deliveries.readBatch({ ...refOf(2), inRun: runId })).toEqual({ kind: 'done', trail: '2d' });
  expect(await deliveries.readBatch({ ...refOf(2), inRun: `${ulid()}.src` })).toEqual({ kind: 'absent' });
  // The audit finds them in the runs since their parts were stored.
  const records = await deliveries.batchesOf(
    workspaceId,
    'dst',
    [1, 2, 3].map((k) => ({ requestId: refOf(k).requestId, part: k })),
  );
  expect(records.map((r) => [r.part, r.status, r.position.progress, r.trail]).sort()).toEqual([
    [1, 'done', 1, '1d'],
    [2, 'done', 2, '2d'],
    [3, 'done', 3, '3d'],
  ]);
  // A takeover finds the run done: nothing of it is counted again.
  expect(await deliveries.abandonRun({ workspaceId, destinationId: 'dst', runId })).toBe(false);
});

it('finishes the listable batches of a run abandoned before its counting one by one, each only where no other took it, counted once', async () => {
  const workspaceId = 'ws-runs-listed-abandoned';
  const runId = '01KRUNSABANDONED0000000000.src';
  const refOf = (k: number) => ({ workspaceId, sourceId: 'src', destinationId: 'dst', requestId: `01KRUNSABANDONED000000000${k}`, part: 0 });
  const deliveries = new DeliveryRepository(rt.store);
  // Its held run was taken over: the run is abandoned, and the taker claimed the second batch before sending it.
  expect(await deliveries.abandonRun({ workspaceId, destinationId: 'dst', runId })).toBe(true);
  const taker: BatchGuard = { ref: refOf(2), owner: 'taker', prior: { kind: 'absent' }, established: false, claimFirst: true };
  expect(await deliveries.writeBatch(taker, change(0))).toMatchObject({ established: true });
  const guards: BatchGuard[] = [1, 2, 3].map((k) => ({ ref: refOf(k), owner: 'late', prior: { kind: 'absent' }, established: false, listable: true }));
  const finished = await deliveries.finishBatches(
    guards.map((guard) => ({ guard, change: change(1, true) })),
    runId,
  );
  expect(finished.map((f) => f !== undefined)).toEqual([true, false, true]);
  expect(await deliveries.readBatch(refOf(1))).toEqual({ kind: 'done', trail: '1d' });
  expect(await deliveries.readBatch(refOf(2))).toMatchObject({ kind: 'sending', owner: 'taker' });
  expect(await deliveries.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 2 });
});

it("tells a stream run at one destination from the same run's id at another: one done does not finish the other's parts", async () => {
  const workspaceId = 'ws-runs-two-destinations';
  // A stream run is named after its count and source: the same id at each destination of the source.
  const runId = `${ulid()}.src`;
  const refAt = (destinationId: string) => ({ workspaceId, sourceId: 'src', destinationId, requestId: ulid(), part: 0 });
  const refs = [refAt('dst-a'), refAt('dst-a'), refAt('dst-b')];
  const deliveries = new DeliveryRepository(rt.store);
  const guards: BatchGuard[] = refs.map((ref) => ({ ref, owner: 'me', prior: { kind: 'absent' }, established: false }));
  const finished = { ...change(1, true), run: runId };
  for (const guard of guards) Object.assign(guard, await deliveries.writeBatch(guard, finished));
  // The run is counted at the first destination only (its two parts stay written finished in it).
  const counted = await deliveries.finishBatches(
    guards.slice(0, 2).map((guard) => ({ guard, change: finished, written: true })),
    runId,
  );
  expect(counted.every((c) => c?.established)).toBe(true);
  const states = await deliveries.readBatches(refs);
  expect(refs.map((ref) => states.get(batchIdOf(ref))!.kind)).toEqual(['done', 'done', 'sending']);
  expect(await deliveries.outcomes(workspaceId, 'dst-b')).toBeUndefined();
});

it("writes a run's listable batches finished one by one when their list would pass what a run's record holds", async () => {
  const workspaceId = 'ws-runs-long-list';
  const runId = `${ulid()}.src`;
  const refOf = (k: number) => ({ workspaceId, sourceId: 'src', destinationId: 'dst', requestId: ulid(), part: k });
  const refs = [1, 2, 3].map(refOf);
  const deliveries = new DeliveryRepository(rt.store);
  const guards: BatchGuard[] = refs.map((ref) => ({ ref, owner: 'me', prior: { kind: 'absent' }, established: false, listable: true }));
  // Trails that do not compress: three of them pass the 64 KB a record lists.
  const long = () => ({ ...change(1, true), trail: randomBytes(30_000).toString('base64') });
  const finished = await deliveries.finishBatches(
    guards.map((guard) => ({ guard, change: long() })),
    runId,
  );
  expect(finished.every((f) => f?.established)).toBe(true);
  // Each has an item of its own, done with its run, without a lookup naming the run.
  const states = await deliveries.readBatches(refs);
  expect(refs.map((ref) => states.get(batchIdOf(ref))!.kind)).toEqual(['done', 'done', 'done']);
  expect(await deliveries.outcomes(workspaceId, 'dst')).toMatchObject({ delivered: 3 });
});
