import { setTimeout as sleep } from 'node:timers/promises';
import type { IngestPart } from '../../shared/domain/ingestion/records';
import { FakeDeliveryStore } from '../support/delivery-fakes';
import { afterEachWrite, deliveryOver, localDestination, partOf, testPolicy, webhook, WORKSPACE } from '../support/delivery-use-cases';
import { json } from '../support/destination-server';

/**
 * A run of a stream batch's parts at a webhook sends events of different users side by side, each user's in
 * order (send-chains.ts, DestinationType.concurrent), at most the policy's `sendConcurrency` at once.
 */
const hook = localDestination();
let inFlight = 0;
let most = 0;
/** How long the webhook takes to answer an event (40 ms unless a test says otherwise). */
let answerMs: (messageId: string) => number = () => 40;
beforeAll(() => {
  // A webhook that takes its time to answer, counting the requests it holds at once.
  hook.on('/slow', (req, res) => {
    most = Math.max(most, ++inFlight);
    setTimeout(
      () => {
        inFlight--;
        json(200, { ok: true })(req, res);
      },
      answerMs((req.json as { messageId: string }).messageId),
    );
  });
});
beforeEach(() => {
  most = 0;
  answerMs = () => 40;
});

/** A part of one event per user named, its messageIds `<requestId>-<i>`. */
const partFor = (requestId: string, users: string[]): IngestPart => {
  const part = partOf(requestId, users.length, (i) => users[i]!);
  return { ...part, events: part.events.map((event, i) => ({ ...event, messageId: `${requestId}-${i}` })) };
};
const arrived = () => hook.received.map((r) => (r.json as { messageId: string }).messageId);

describe('sends side by side', () => {
  const parts = [partFor('p1', ['ann', 'bob']), partFor('p2', ['cy', 'dee']), partFor('p3', ['ann', 'eve']), partFor('p4', ['fay', 'gus'])];

  it("sends different users' events at once and each user's in order, every event once", async () => {
    const store = new FakeDeliveryStore();
    const d = deliveryOver(store, [webhook('d-1', `${hook.url}/slow`)], testPolicy({ sendConcurrency: 8 }));
    expect(await d.stream.deliverParts(parts)).toEqual(new Map());
    await d.lanes.idle();
    // p1 and p3 share ann: one chain, p3 after p1. p2 and p4 go beside it.
    expect(most).toBe(3);
    const order = arrived();
    expect([...order].sort()).toEqual(['p1-0', 'p1-1', 'p2-0', 'p2-1', 'p3-0', 'p3-1', 'p4-0', 'p4-1']);
    expect(order.indexOf('p1-0')).toBeLessThan(order.indexOf('p3-0'));
    expect(order.indexOf('p1-1')).toBeLessThan(order.indexOf('p3-0'));
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-1')).toMatchObject({ delivered: 8, retrying: 0 });
    for (const requestId of ['p1', 'p2', 'p3', 'p4']) {
      expect(store.batches.get(`${WORKSPACE}#d-1#${requestId}#0`)).toMatchObject({ status: 'done', position: { progress: 2 } });
    }
  });

  it('on a stop, records what a chain that ended before it sent, so that nothing goes twice after a restart', async () => {
    const store = new FakeDeliveryStore();
    const destinations = [webhook('d-3', `${hook.url}/slow`)];
    const policy = testPolicy({ sendConcurrency: 8, leaseMs: 100 });
    const first = deliveryOver(store, destinations, policy);
    let stopping: Promise<void> | undefined;
    afterEachWrite(first, (guard) => {
      // s2's first send is recorded after s1's only send came back (s1's outcome waits for the run's finish).
      if (guard.ref.requestId === 's2') stopping ??= first.lanes.stop();
    });
    // s1: one event, answered at once; s2: two events of another user, answered after 40 ms.
    answerMs = (messageId) => (messageId === 's1-0' ? 0 : 40);
    const parts = [partFor('s1', ['hal']), partFor('s2', ['ivy', 'ivy'])];
    expect(await first.stream.deliverParts(parts)).toEqual(new Map());
    await stopping;
    expect(arrived().sort()).toEqual(['s1-0', 's2-0']);
    await sleep(120);
    const next = deliveryOver(store, destinations, policy, { parts });
    await next.scheduler.runDue();
    await next.lanes.idle();
    expect(arrived().sort()).toEqual(['s1-0', 's2-0', 's2-1']);
    expect(await next.deliveries.outcomes(WORKSPACE, 'd-3')).toMatchObject({ delivered: 3, retrying: 0 });
  });

  it('keeps to the policy: one at a time when it says one', async () => {
    const store = new FakeDeliveryStore();
    const d = deliveryOver(store, [webhook('d-2', `${hook.url}/slow`)], testPolicy({ sendConcurrency: 1 }));
    expect(await d.stream.deliverParts(parts)).toEqual(new Map());
    await d.lanes.idle();
    expect(most).toBe(1);
    expect(arrived()).toEqual(['p1-0', 'p1-1', 'p2-0', 'p2-1', 'p3-0', 'p3-1', 'p4-0', 'p4-1']);
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-2')).toMatchObject({ delivered: 8 });
  });
});
