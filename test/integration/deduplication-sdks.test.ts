import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { Analytics as SegmentAnalytics } from '@segment/analytics-node';
import { deliveryRig, flowThrough, webhookPipeline } from '../support/delivery-rig';
import { startDroppingProxy, type DroppingProxy } from '../support/dropping-proxy';

/**
 * The field's real Node SDKs, unchanged and configured only as a user would, sending through a proxy that
 * loses the first answer after Weir has acknowledged it: each SDK sends the same batch again on its own (the
 * RudderStack SDK through axios-retry on a network error, Segment's publisher with its own backoff and an
 * `X-Retry-Count` header), and each event reaches the webhook once; the source's funnel counts the duplicates.
 */
const rig = deliveryRig();
let proxy: DroppingProxy;

beforeAll(async () => {
  proxy = await startDroppingProxy(rig.rt.dataUrl);
});
afterAll(() => proxy.close());

/** A webhook pipeline whose source's funnel can be read, and the proxy's answers from the next lost one on. */
async function pipeline(path: string) {
  const p = await webhookPipeline(rig, path);
  const from = new Date(Date.now() - 3600_000).toISOString();
  const funnel = async () => (await p.api('GET', `/v2/sources/${p.source.id}/delivery?from=${from}`)).body;
  let lostFrom = 0;
  const loseNextAnswer = () => {
    lostFrom = proxy.answered.length;
    proxy.dropNext();
  };
  return { ...p, funnel, loseNextAnswer, answeredSinceLoss: () => proxy.answered.slice(lostFrom) };
}

const received = (path: string) => rig.server.received.filter((r) => r.path === path).map((r) => r.json as { type: string; event?: string; messageId: string });

describe('the field SDKs retrying after a lost answer', () => {
  it('@rudderstack/rudder-sdk-node sends its batch again after the lost answer, and each event reaches the webhook once', async () => {
    const p = await pipeline('/rudder');
    const errors: unknown[] = [];
    const client = new RudderAnalytics(p.source.writeKey, {
      dataPlaneUrl: proxy.url,
      flushAt: 10,
      logLevel: 'none',
      errorHandler: (e) => errors.push(e),
    });
    const done = (error?: Error) => void (error && errors.push(error));
    // The SDK sends a client's first event at once, alone; the next ones wait for a flush, in one batch.
    client.identify({ userId: 'ada', traits: { plan: 'pro' } }, done);
    await client.flush();
    p.loseNextAnswer();
    client.track({ userId: 'ada', event: 'Product Viewed', properties: { sku: 'a-1' } }, done);
    client.track({ userId: 'ada', event: 'Product Added', properties: { sku: 'a-1' } }, done);
    client.track({ userId: 'ada', event: 'Order Completed', properties: { revenue: 42 } }, done);
    await client.flush();
    expect(errors).toEqual([]);
    // The SDK's own retry: the same batch twice, both acknowledged by Weir, the first answer lost on the way.
    expect(p.answeredSinceLoss()).toEqual([
      { path: '/v1/batch', status: 200 },
      { path: '/v1/batch', status: 200 },
    ]);

    await flowThrough(rig);
    const events = received('/rudder');
    expect(events.map((e) => e.event ?? e.type)).toEqual(['identify', 'Product Viewed', 'Product Added', 'Order Completed']);
    expect(new Set(events.map((e) => e.messageId)).size).toBe(4);
    expect(await p.funnel()).toMatchObject({ stored: 7, duplicate: 3 });
  });

  it('@segment/analytics-node sends its batch again after the lost answer, and each event reaches the webhook once', async () => {
    const p = await pipeline('/segment');
    p.loseNextAnswer();
    const analytics = new SegmentAnalytics({ writeKey: p.source.writeKey, host: proxy.url, flushAt: 10 });
    const errors: unknown[] = [];
    const retryCounts: (string | undefined)[] = [];
    analytics.on('error', (e) => errors.push(e));
    analytics.on('http_request', (r) => retryCounts.push(r.headers['X-Retry-Count']));
    analytics.identify({ userId: 'grace', traits: { plan: 'team' } });
    analytics.track({ userId: 'grace', event: 'Report Viewed', properties: { pages: 3 } });
    analytics.track({ userId: 'grace', event: 'Report Shared', properties: { with: 2 } });
    await analytics.closeAndFlush({ timeout: 15_000 });
    expect(errors).toEqual([]);
    // Segment's publisher retried on its own (its backoff, its header), and Weir acknowledged both attempts.
    expect(retryCounts).toEqual([undefined, '1']);
    expect(p.answeredSinceLoss()).toEqual([
      { path: '/v1/batch', status: 200 },
      { path: '/v1/batch', status: 200 },
    ]);

    await flowThrough(rig);
    const events = received('/segment');
    expect(events.map((e) => e.event ?? e.type)).toEqual(['identify', 'Report Viewed', 'Report Shared']);
    expect(new Set(events.map((e) => e.messageId)).size).toBe(3);
    expect(await p.funnel()).toMatchObject({ stored: 6, duplicate: 3 });
  });
});
