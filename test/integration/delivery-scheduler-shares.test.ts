import { setTimeout as sleep } from 'node:timers/promises';
import { DESTINATION_TIMEOUT_ENV } from '../../shared/destinations/http-client';
import { FakeDeliveryStore } from '../support/delivery-fakes';
import { deliveryOver, localDestination, partOf, testPolicy, webhook, WORKSPACE } from '../support/delivery-use-cases';
import { json, messageIdsAt, silent } from '../support/destination-server';
import { waitFor } from '../support/wait';

/**
 * The scheduler's rounds beside a destination that hangs, through the use cases over in-memory fakes and a
 * local HTTP destination: a round queues nothing behind a share of an earlier round still in the lane.
 */
const hook = localDestination({ [DESTINATION_TIMEOUT_ENV]: '1500' });

const sentTo = (path: string) => messageIdsAt(hook, path);

it("adds no share for a destination whose earlier share is still in its lane, nor for batches the process holds; once it is done, the next round's share goes", async () => {
  const store = new FakeDeliveryStore();
  let answer: 'fail' | 'hang' | 'ok' = 'fail';
  hook.on('/stuck', (req, res) => (answer === 'hang' ? silent(req, res) : json(answer === 'fail' ? 503 : 200, {})(req, res)));
  const d = deliveryOver(store, [webhook('d-stuck', `${hook.url}/stuck`)], testPolicy({ laneWaitMs: 50, leaseMs: 100, circuitOpenMs: 100 }));
  // Three events parked (503s; too few to open the circuit), then the destination hangs on the next batch.
  await d.stream.deliverParts([partOf('r-1', 3)]);
  // On a busy machine the consumer may stop waiting (laneWaitMs is short here) before the lane ends the batch.
  await d.lanes.idle();
  expect(await d.deliveries.outcomes(WORKSPACE, 'd-stuck')).toMatchObject({ retrying: 3 });
  answer = 'hang';
  await d.stream.deliverParts([{ ...partOf('r-2', 1), events: [{ messageId: 'late', type: 'track', event: 'Clicked', userId: 'other' }] }]);
  // The held batch's lease runs out and the parked retries are due, while its send still hangs.
  await sleep(150);

  const submit = jest.spyOn(d.lanes, 'submit');
  for (let round = 0; round < 4; round++) {
    await d.scheduler.runDue();
    await sleep(20);
  }
  // One share: the retries behind the hanging send. Not one per round, each to be worked through again once
  // the send times out; and none for the held batch, which is this process's and already in the lane.
  expect(submit.mock.calls.map(([destinationId]) => destinationId)).toEqual(['d-stuck']);

  // The hanging send times out (opening the circuit) and the share is worked through; then rounds go again.
  await d.lanes.idle();
  answer = 'ok';
  const round = async () => {
    await sleep(120);
    await d.scheduler.runDue();
    await d.lanes.idle();
    return ((await d.deliveries.outcomes(WORKSPACE, 'd-stuck')) as { delivered: number }).delivered;
  };
  await waitFor('the stuck destination to deliver its 4 events', round, (delivered) => delivered >= 4, { timeoutMs: 10_000, everyMs: 0 });
  expect(submit.mock.calls.length).toBeGreaterThan(1);
  // Every event delivered exactly once; the hanging send's, which got no answer, once more.
  expect(await d.deliveries.outcomes(WORKSPACE, 'd-stuck')).toMatchObject({ delivered: 4, retrying: 0, aborted: 0 });
  expect(sentTo('/stuck').filter((id) => id === 'late')).toHaveLength(2);
  expect(new Set(sentTo('/stuck').filter((id) => id !== 'late'))).toEqual(new Set(['m-0', 'm-1', 'm-2']));
});
