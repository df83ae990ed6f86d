import { deliveryRig } from '../../support/delivery-rig';
import type { ReceivedRequest } from '../../support/destination-server';
import { oneShard } from '../../support/ingest-items';
import { vendorPipeline } from '../../support/vendor-pipeline';

/**
 * How many events one Mixpanel request carries, live, against a local server playing Mixpanel: Track Events and
 * Import Events take "2000 events and 2MB uncompressed per request" (docs.mixpanel.com/reference/track-event,
 * "/track vs /import" and "Limits"), so a stream batch goes in requests of 2,000 events, cut sooner where 2 MB
 * would be passed.
 */
const rig = deliveryRig();

/** Users of one ingest shard: a request of theirs is stored, and delivered, as one batch. */
const user = oneShard('user-0');
const MAX_BYTES = 2_000_000;

const tracks = (n: number, prefix: string, properties: Record<string, unknown> = {}) =>
  Array.from({ length: n }, (_, i) => ({ type: 'track', userId: user(`user-${i % 10}`), event: 'Batched', messageId: `${prefix}-${i}`, properties }));

const insertIds = (request: ReceivedRequest) => (request.json as { properties: { $insert_id: string } }[]).map((e) => e.properties.$insert_id);

describe('Mixpanel requests carry up to 2,000 events', () => {
  it.each([
    ['/track', {}],
    ['/import', { apiSecret: 'secret' }],
  ])(
    '%s: 2,005 events go as one request of 2,000 and one of 5, each event once, in order',
    async (endpoint, extra) => {
      const path = `/mp-2000${endpoint}`;
      const p = await vendorPipeline(rig, 'MP', { token: 'tok', baseUrl: `${rig.server.url}/mp-2000`, ...extra });
      const sent = tracks(2005, `n${endpoint.slice(1)}`);
      await p.send(sent);
      await p.flow();
      // On a loaded machine the stream consumer may stop waiting before the last request: the scheduler sends it.
      for (let deadline = Date.now() + 60_000; Date.now() < deadline && Number((await p.outcomes()).delivered ?? 0) < sent.length;) await p.flow(1);
      const requests = rig.server.received.filter((r) => r.path === path);
      expect(requests.map((r) => insertIds(r).length)).toEqual([2000, 5]);
      expect(requests.flatMap(insertIds)).toEqual(sent.map((e) => e.messageId));
      expect(await p.outcomes()).toMatchObject({ delivered: 2005, retrying: 0, aborted: 0 });
    },
    120_000,
  );

  it('/track: a chunk is cut before it passes 2 MB, well past 50 events, and every request stays within 2 MB', async () => {
    const p = await vendorPipeline(rig, 'MP', { token: 'tok', baseUrl: `${rig.server.url}/mp-bytes` });
    // 100 events of about 25 KB (under the 32 KB an event may have): about 2.5 MB in all.
    const sent = tracks(100, 'big', { note: 'x'.repeat(25_000) });
    await p.send(sent);
    await p.flow();
    const requests = rig.server.received.filter((r) => r.path === '/mp-bytes/track');
    const sizes = requests.map((r) => insertIds(r).length);
    expect(sizes.length).toBeGreaterThan(1);
    expect(sizes[0]).toBeGreaterThan(50);
    expect(sizes.reduce((a, b) => a + b, 0)).toBe(100);
    for (const r of requests) expect(Buffer.byteLength(r.body)).toBeLessThanOrEqual(MAX_BYTES + 2);
    // Cut at the limit: the first event of the next request would not have fit in the one before.
    const nextItem = Buffer.byteLength(JSON.stringify((requests[1]!.json as unknown[])[0])) + 1;
    expect(Buffer.byteLength(requests[0]!.body) + nextItem).toBeGreaterThan(MAX_BYTES);
    expect(requests.flatMap(insertIds)).toEqual(sent.map((e) => e.messageId));
    expect(await p.outcomes()).toMatchObject({ delivered: 100, retrying: 0, aborted: 0 });
  }, 120_000);
});
