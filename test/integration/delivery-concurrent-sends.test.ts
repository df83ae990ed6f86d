import { OUTBOUND_ALLOWLIST_ENV } from '../../shared/outbound/allowlist';
import type { IngestPart } from '../../shared/domain/ingestion/records';
import { FakeDeliveryStore } from '../support/delivery-fakes';
import { deliveryOver, partOf, testPolicy, webhook, WORKSPACE } from '../support/delivery-use-cases';
import { json, startDestinationServer, type DestinationServer } from '../support/destination-server';

/**
 * A run of a stream batch's parts at a webhook sends events of different users side by side, each user's in
 * order (send-chains.ts, DestinationType.concurrent), at most the policy's `sendConcurrency` at once.
 */
let hook: DestinationServer;
let inFlight = 0;
let most = 0;
beforeAll(async () => {
  process.env[OUTBOUND_ALLOWLIST_ENV] = '127.0.0.1';
  hook = await startDestinationServer();
  // A webhook that takes 40 ms to answer, counting the requests it holds at once.
  hook.on('/slow', (req, res) => {
    most = Math.max(most, ++inFlight);
    setTimeout(() => {
      inFlight--;
      json(200, { ok: true })(req, res);
    }, 40);
  });
});
afterAll(async () => {
  delete process.env[OUTBOUND_ALLOWLIST_ENV];
  await hook.close();
});
beforeEach(() => {
  hook.received.length = 0;
  most = 0;
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
