import { setTimeout as sleep } from 'node:timers/promises';
import { FakeDeliveryStore } from '../support/delivery-fakes';
import { afterEachWrite, deliveryOver, localDestination, partOf, SOURCE, testPolicy, webhook, WORKSPACE } from '../support/delivery-use-cases';
import { json, messageIdsAt } from '../support/destination-server';

/** The delivery use cases through their ports, over in-memory fakes: no table, a local HTTP destination. */
const hook = localDestination();

const sentTo = (path: string) => messageIdsAt(hook, path);
const refOf = (requestId: string, destinationId: string) => ({ workspaceId: WORKSPACE, sourceId: SOURCE, destinationId, requestId, part: 0 });

describe('delivering a stream batch', () => {
  it('sends each event once, finishes the batch, and counts what it delivered', async () => {
    const store = new FakeDeliveryStore();
    const part = partOf('r-1', 3);
    const d = deliveryOver(store, [webhook('d-1', `${hook.url}/one`)], testPolicy());
    expect(await d.stream.deliverParts([part])).toEqual(new Map());
    expect(sentTo('/one')).toEqual(['m-0', 'm-1', 'm-2']);
    expect(await d.deliveries.readBatch(refOf('r-1', 'd-1'))).toEqual({ kind: 'done' });
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-1')).toEqual({ delivered: 3, filtered: 0, aborted: 0, retrying: 0 });
    // The record handed over again: the batch is done, nothing goes twice.
    expect(await d.stream.deliverParts([part])).toEqual(new Map());
    expect(sentTo('/one')).toEqual(['m-0', 'm-1', 'm-2']);
  });

  it('counts every event exactly once: delivered, aborted, retrying, or suppressed', async () => {
    const store = new FakeDeliveryStore();
    hook.on('/mixed', (req, res) => {
      const { messageId } = req.json as { messageId: string };
      json(messageId === 'm-1' ? 400 : messageId === 'm-2' ? 503 : 200, { messageId })(req, res);
    });
    const part = partOf('r-2', 5);
    const d = deliveryOver(store, [webhook('d-2', `${hook.url}/mixed`)], testPolicy(), { suppressed: new Set(['user-4']) });
    expect(await d.stream.deliverParts([part])).toEqual(new Map());
    // The suppressed user's event goes nowhere; it is counted on its source.
    expect(sentTo('/mixed')).toEqual(['m-0', 'm-1', 'm-2', 'm-3']);
    expect(d.counted.suppressed).toBe(1);
    const counters = await d.deliveries.outcomes(WORKSPACE, 'd-2');
    expect(counters).toEqual({ delivered: 2, filtered: 0, aborted: 1, retrying: 1 });
    const { delivered, filtered, aborted, retrying } = counters as Record<string, number>;
    expect(delivered! + filtered! + aborted! + retrying! + d.counted.suppressed).toBe(part.events.length);
    expect([...store.parked.values()].map((p) => p.messageId)).toEqual(['m-2']);
  });
});

describe("the scheduler's retry and resume", () => {
  it("parks a failed send, holds its user's next event behind it, and delivers both in order once the destination answers", async () => {
    const store = new FakeDeliveryStore();
    hook.on('/flaky', json(503, { error: 'down' }));
    const part = partOf('r-3', 2, () => 'same-user');
    const d = deliveryOver(store, [webhook('d-3', `${hook.url}/flaky`)], testPolicy());
    expect(await d.stream.deliverParts([part])).toEqual(new Map());
    // Only the first was sent; the second waits behind it, unsent.
    expect(sentTo('/flaky')).toEqual(['m-0']);
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-3')).toEqual({ delivered: 0, filtered: 0, aborted: 0, retrying: 2 });
    hook.on('/flaky', json(200, { ok: true }));
    for (let round = 0; round < 20 && store.parked.size > 0; round++) {
      await sleep(10);
      await d.scheduler.runDue();
    }
    expect(sentTo('/flaky')).toEqual(['m-0', 'm-0', 'm-1']);
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-3')).toEqual({ delivered: 2, filtered: 0, aborted: 0, retrying: 0 });
    expect(store.settled.map((s) => [s.messageId, s.outcome])).toEqual([
      ['m-0', 'delivered'],
      ['m-1', 'delivered'],
    ]);
  });

  it("delivers a held user's parked deliveries one after the other within one round, in order, once the destination answers", async () => {
    const store = new FakeDeliveryStore();
    hook.on('/catch-up', json(503, { error: 'down' }));
    const part = partOf('r-9', 6, () => 'held-user');
    // Its later deliveries, found waiting behind the first, are put back a long way (a minute).
    const d = deliveryOver(store, [webhook('d-9', `${hook.url}/catch-up`)], testPolicy({ maxDelayMs: 60_000 }));
    expect(await d.stream.deliverParts([part])).toEqual(new Map());
    await sleep(20);
    await d.scheduler.runDue();
    expect(sentTo('/catch-up')).toEqual(['m-0', 'm-0']);
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-9')).toMatchObject({ delivered: 0, retrying: 6 });
    hook.on('/catch-up', json(200, { ok: true }));
    await sleep(50);
    // One round: the first goes, and each one's end makes the next due and sends it.
    await d.scheduler.runDue();
    expect(sentTo('/catch-up')).toEqual(['m-0', 'm-0', 'm-0', 'm-1', 'm-2', 'm-3', 'm-4', 'm-5']);
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-9')).toMatchObject({ delivered: 6, retrying: 0 });
  });

  it("resumes a batch after its last recorded write once its owner's lease runs out, and sends nothing twice", async () => {
    const store = new FakeDeliveryStore();
    const part = partOf('r-4', 5);
    const destinations = [webhook('d-4', `${hook.url}/resume`)];
    const policy = testPolicy({ leaseMs: 150 });
    // The first process records its second send, and its run ends there (a write that went through, then an
    // error: nothing after it is sent or recorded).
    const first = deliveryOver(store, destinations, policy);
    afterEachWrite(first, (_, writes) => {
      if (writes === 2) throw new Error('the process died');
    });
    await first.stream.deliverParts([part]);
    await first.lanes.idle();
    expect(sentTo('/resume')).toEqual(['m-0', 'm-1']);
    expect(await first.deliveries.readBatch(refOf('r-4', 'd-4'))).toMatchObject({ kind: 'sending', position: { progress: 2 } });
    // The next process: the record comes again while the first owner's lease lives: nothing is sent, the batch
    // goes where the scheduler finds it once the lease runs out.
    const next = deliveryOver(store, destinations, policy, { parts: [part] });
    expect(await next.stream.deliverParts([part])).toEqual(new Map());
    expect(sentTo('/resume')).toEqual(['m-0', 'm-1']);
    expect(await next.scheduler.runDue()).toBe(0);
    await sleep(200);
    expect(await next.scheduler.runDue()).toBe(1);
    expect(sentTo('/resume')).toEqual(['m-0', 'm-1', 'm-2', 'm-3', 'm-4']);
    expect(await next.deliveries.outcomes(WORKSPACE, 'd-4')).toEqual({ delivered: 5, filtered: 0, aborted: 0, retrying: 0 });
    // Done: neither the stream nor the scheduler sends anything again.
    expect(await next.stream.deliverParts([part])).toEqual(new Map());
    expect(await next.scheduler.runDue()).toBe(0);
    expect(sentTo('/resume')).toHaveLength(5);
  });

  it('carries the per-rule counts of a resumed batch: each stopped event counted once under its rule', async () => {
    const store = new FakeDeliveryStore();
    const part = partOf('r-rules', 6);
    const destinations = [webhook('d-rules', `${hook.url}/rules`)];
    const policy = testPolicy({ leaseMs: 100 });
    const rules = {
      'd-rules': [
        { type: 'drop-if' as const, name: 'odd', match: 'all' as const, conditions: [{ path: 'messageId', op: 'in' as const, values: ['m-1', 'm-3', 'm-5'] }] },
      ],
    };
    const first = deliveryOver(store, destinations, policy, { rules });
    afterEachWrite(first, (_, writes) => {
      if (writes === 2) throw new Error('the process died');
    });
    await first.stream.deliverParts([part]);
    await first.lanes.idle();
    // m-0 and m-2 were sent; m-1, stopped by the rule, was settled and recorded between them.
    expect(await first.deliveries.readBatch(refOf('r-rules', 'd-rules'))).toMatchObject({
      kind: 'sending',
      counts: { delivered: 2, filtered: 1, byRule: { odd: 1 } },
    });
    await sleep(150);
    const next = deliveryOver(store, destinations, policy, { parts: [part], rules });
    expect(await next.scheduler.runDue()).toBe(1);
    expect(sentTo('/rules')).toEqual(['m-0', 'm-2', 'm-4']);
    expect(store.batches.get(`${WORKSPACE}#d-rules#r-rules#0`)!.counts).toEqual({ delivered: 3, filtered: 3, aborted: 0, byRule: { odd: 3 } });
    expect(await next.deliveries.outcomes(WORKSPACE, 'd-rules')).toMatchObject({ delivered: 3, filtered: 3 });
  });

  /** A process that sends the first of a part's events, records it, and dies: the batch is left sending. */
  async function abandoned(store: FakeDeliveryStore, requestId: string, destinations: ReturnType<typeof webhook>[], policy: ReturnType<typeof testPolicy>) {
    const part = partOf(requestId, 4);
    const first = deliveryOver(store, destinations, policy);
    afterEachWrite(first, () => {
      throw new Error('the process died');
    });
    await first.stream.deliverParts([part]);
    await first.lanes.idle();
    await sleep(150);
    return part;
  }

  it('aborts what is left of a batch whose destination was disabled meanwhile, with the reason, and finishes it', async () => {
    const store = new FakeDeliveryStore();
    const policy = testPolicy({ leaseMs: 100 });
    const d = webhook('d-6', `${hook.url}/disabled`);
    const part = await abandoned(store, 'r-6', [d], policy);
    expect(sentTo('/disabled')).toEqual(['m-0']);
    const next = deliveryOver(store, [{ ...d, enabled: false }], policy, { parts: [part] });
    expect(await next.scheduler.runDue()).toBe(1);
    expect(sentTo('/disabled')).toEqual(['m-0']);
    expect(await next.deliveries.readBatch(refOf('r-6', 'd-6'))).toEqual({ kind: 'done' });
    expect(await next.deliveries.outcomes(WORKSPACE, 'd-6')).toMatchObject({ delivered: 1, aborted: 3, retrying: 0 });
    expect(await next.deliveries.needingAttention(new Date(Date.now() + 3600_000).toISOString(), 100)).toEqual([]);
  });

  it('finishes a batch whose destination was deleted, or whose events expired, where it stands: it is due no more', async () => {
    for (const [requestId, gone] of [
      ['r-7', 'deleted'],
      ['r-8', 'expired'],
    ] as const) {
      const store = new FakeDeliveryStore();
      const policy = testPolicy({ leaseMs: 100 });
      const d = webhook(`d-${requestId}`, `${hook.url}/${requestId}`);
      const part = await abandoned(store, requestId, [d], policy);
      const next = deliveryOver(store, gone === 'deleted' ? [] : [d], policy, { parts: gone === 'expired' ? [] : [part] });
      expect(await next.scheduler.runDue()).toBe(1);
      expect(sentTo(`/${requestId}`)).toEqual(['m-0']);
      expect(await next.deliveries.readBatch(refOf(requestId, d.id))).toEqual({ kind: 'done' });
      expect(await next.deliveries.needingAttention(new Date(Date.now() + 3600_000).toISOString(), 100)).toEqual([]);
      expect(await next.scheduler.runDue()).toBe(0);
    }
  });

  it('of two runs that take over the same abandoned batch at once, only one sends: the claim is written first', async () => {
    const store = new FakeDeliveryStore();
    const destinations = [webhook('d-5', `${hook.url}/twice`)];
    const policy = testPolicy({ leaseMs: 100 });
    const part = await abandoned(store, 'r-5', destinations, policy);
    expect(sentTo('/twice')).toEqual(['m-0']);
    // Its lease ran out: the scheduler of one process and the stream of another both read it abandoned.
    const [a, b] = [deliveryOver(store, destinations, policy, { parts: [part] }), deliveryOver(store, destinations, policy, { parts: [part] })];
    await Promise.all([a.scheduler.runDue(), b.stream.deliverParts([part])]);
    await Promise.all([a.lanes.idle(), b.lanes.idle()]);
    expect(sentTo('/twice').sort()).toEqual(['m-0', 'm-1', 'm-2', 'm-3']);
    expect(await a.deliveries.outcomes(WORKSPACE, 'd-5')).toEqual({ delivered: 4, filtered: 0, aborted: 0, retrying: 0 });
  });
});
