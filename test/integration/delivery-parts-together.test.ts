import { setTimeout as sleep } from 'node:timers/promises';
import type { IngestPart } from '../../shared/domain/ingestion/records';
import { FakeDeliveryStore } from '../support/delivery-fakes';
import { afterEachWrite, deliveryOver, localDestination, partOf, testPolicy, webhook, WORKSPACE } from '../support/delivery-use-cases';
import { messageIdsAt } from '../support/destination-server';

/**
 * A stream batch's parts of one source run together at a destination (batch-delivery.ts `runParts`), each
 * batch keeping its own item: what happens to the others when one is taken over, or when the process stops.
 */
const hook = localDestination();

const sentTo = (path: string) => messageIdsAt(hook, path);
/** A part whose events' messageIds start with its request id, so that two parts' events tell apart. */
const named = (requestId: string, count: number): IngestPart => {
  const part = partOf(requestId, count, (i) => `${requestId}-user-${i}`);
  return { ...part, events: part.events.map((event, i) => ({ ...event, messageId: `${requestId}-${i}` })) };
};
const idOf = (requestId: string, destinationId: string) => `${WORKSPACE}#${destinationId}#${requestId}#0`;
/** One send at a time, so the order of the sends is the run's (delivery-concurrent-sends.test.ts: side by side). */
const oneAtATime = (overrides: Parameters<typeof testPolicy>[0] = {}) => testPolicy({ sendConcurrency: 1, ...overrides });

describe('parts delivered together', () => {
  it('leaves a batch another run took over to that run, and finishes the others with their counters', async () => {
    const store = new FakeDeliveryStore();
    const [a, b] = [named('ra', 3), named('rb', 2)];
    const d = deliveryOver(store, [webhook('d-1', `${hook.url}/taken`)], oneAtATime());
    afterEachWrite(d, (guard) => {
      // Right after its first recorded send, another owner takes part a's batch over.
      const item = store.batches.get(idOf('ra', 'd-1'))!;
      if (guard.ref.requestId === 'ra' && item.owner === guard.owner) item.owner = 'another';
    });
    expect(await d.stream.deliverParts([a, b])).toEqual(new Map());
    // ra-1 went before its write found the batch gone (as a lone batch's would); ra-2 is left to the other run.
    expect(sentTo('/taken')).toEqual(['ra-0', 'ra-1', 'rb-0', 'rb-1']);
    expect(store.batches.get(idOf('ra', 'd-1'))).toMatchObject({ owner: 'another', status: 'sending', position: { progress: 1 } });
    expect(store.batches.get(idOf('rb', 'd-1'))).toMatchObject({ status: 'done' });
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-1')).toMatchObject({ delivered: 2 });
  });

  it('runs a part handed over twice in one stream batch once', async () => {
    const store = new FakeDeliveryStore();
    const a = named('ta', 2);
    const d = deliveryOver(store, [webhook('d-3', `${hook.url}/twice`)], oneAtATime());
    expect(await d.stream.deliverParts([a, named('tb', 1), a])).toEqual(new Map());
    expect(sentTo('/twice')).toEqual(['ta-0', 'ta-1', 'tb-0']);
    expect(await d.deliveries.outcomes(WORKSPACE, 'd-3')).toMatchObject({ delivered: 3 });
  });

  it('on a stop, gives back the batches it wrote and its run, with those it had not reached, where the scheduler finds them; each event goes once', async () => {
    const store = new FakeDeliveryStore();
    const parts = [named('sa', 2), named('sb', 2), named('sc', 1)];
    const destinations = [webhook('d-2', `${hook.url}/stop`)];
    const policy = oneAtATime({ leaseMs: 100 });
    const first = deliveryOver(store, destinations, policy);
    let stopping: Promise<void> | undefined;
    afterEachWrite(first, () => void (stopping ??= first.lanes.stop()));
    expect(await first.stream.deliverParts(parts)).toEqual(new Map());
    await stopping;
    expect(sentTo('/stop')).toEqual(['sa-0']);
    expect(store.batches.get(idOf('sa', 'd-2'))).toMatchObject({ status: 'sending', position: { progress: 1 } });
    // Never written by the run: in its held run, given back due at once for the scheduler.
    for (const requestId of ['sb', 'sc']) expect(store.batches.has(idOf(requestId, 'd-2'))).toBe(false);
    const [held, ...others] = [...store.held.values()];
    expect(others).toEqual([]);
    expect(held!.parts.map((p) => p.requestId)).toEqual(['sa', 'sb', 'sc']);
    expect(Date.parse(held!.leaseUntil)).toBeLessThanOrEqual(Date.now());
    await sleep(120);
    const next = deliveryOver(store, destinations, policy, { parts });
    expect(await next.scheduler.runDue()).toBe(3);
    await next.lanes.idle();
    expect(sentTo('/stop')).toEqual(['sa-0', 'sa-1', 'sb-0', 'sb-1', 'sc-0']);
    expect(await next.deliveries.outcomes(WORKSPACE, 'd-2')).toMatchObject({ delivered: 5, retrying: 0 });
  });
});
