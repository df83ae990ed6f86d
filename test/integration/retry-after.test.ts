import { setTimeout as sleep } from 'node:timers/promises';
import { deliveryRig, sourcePipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { oneShard } from '../support/ingest-items';

/** A destination's Retry-After holds its events back for as long as it asked, on the first send and on retries. */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

async function pipeline(destination: { type: string; config: Record<string, unknown> }) {
  const { connect, batch, outcomes } = await sourcePipeline(rig);
  const d = await connect({ name: 'throttled', ...destination });
  return { send: batch, outcomes: () => outcomes(d) };
}

/** Answers 429 with `Retry-After: <seconds>` the first `refusals` times, then 200; records when each request came. */
function throttling(path: string, seconds: string, refusals: number) {
  const times: number[] = [];
  rig.server.on(path, (req, res) => {
    times.push(Date.now());
    if (times.length <= refusals) {
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': seconds });
      return res.end(JSON.stringify({ error: 'slow down' }));
    }
    json(200, { code: 200 })(req, res);
  });
  return times;
}

/** Runs the scheduler over and over (retries are due after 20 ms by the policy) until `ms` have passed since `since`. */
async function roundsUntil(since: number, ms: number) {
  while (Date.now() < since + ms) {
    await rig.rt.scheduler.runNow();
    await sleep(50);
  }
  await rig.rt.scheduler.runNow();
}

describe("a destination's Retry-After", () => {
  it('parks a throttled webhook event until the time the destination asked for, not the first retry delay', async () => {
    const times = throttling('/wait', '2', 1);
    const p = await pipeline({ type: 'WEBHOOK', config: { webhookUrl: `${rig.server.url}/wait` } });
    await p.send([{ type: 'track', userId: 'u', event: 'e', messageId: 'ra-1' }]);
    await rig.rt.poller.drain();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 1 });
    await roundsUntil(times[0]!, 2500);
    // However slow the rounds were, the one retry came no sooner than asked.
    expect(times).toHaveLength(2);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(2000);
    expect(await p.outcomes()).toMatchObject({ delivered: 1, retrying: 0 });
  });

  it("honours it on a retry too, and on a batch vendor's chunk", async () => {
    const times = throttling('/amp/2/httpapi', '1', 2);
    const p = await pipeline({ type: 'AM', config: { apiKey: 'key', baseUrl: `${rig.server.url}/amp` } });
    // Users of one ingest shard: the request is one batch, one chunk.
    const user = oneShard('u0');
    await p.send([0, 1, 2].map((i) => ({ type: 'track', userId: user(`u${i}`), event: 'e', messageId: `am-${i}` })));
    await rig.rt.poller.drain();
    expect(times).toHaveLength(1);
    await roundsUntil(times[0]!, 3500);
    // The chunk was refused with Retry-After: 1; its events were retried one by one no sooner, the first of
    // them refused again with Retry-After: 1 and retried once more no sooner than that.
    expect(times).toHaveLength(5);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1000);
    expect(times[4]! - times[1]!).toBeGreaterThanOrEqual(1000);
    expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 0 });
  });
});
