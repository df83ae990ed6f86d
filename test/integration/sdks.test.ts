import RudderAnalytics from '@rudderstack/rudder-sdk-node';
import { Analytics as SegmentAnalytics } from '@segment/analytics-node';
import { deliveryRig, sourcePipeline, webhookAt } from '../support/delivery-rig';
import { ADMIN, basic, call } from '../support/runtime';
import { waitFor } from '../support/wait';

/**
 * The field's real Node SDKs, unchanged, pointed at the local data plane: the RudderStack SDK sends gzip
 * labelled form-urlencoded with the write key in Basic auth, Segment's plain JSON with it in the body too.
 * Their track and identify events reach a local HTTP destination exactly once.
 */
const rig = deliveryRig({ runtime: {} });

async function connectedSource(path: string) {
  const { source, connect } = await sourcePipeline(rig, { name: 'node service' });
  await connect(webhookAt(rig, path, 'hook'));
  return source;
}

/** Waits until the destination has `count` requests on `path` (or 15 s), then a moment more for duplicates. */
async function receivedOn(path: string, count: number) {
  await waitFor(
    `${count} requests on ${path}`,
    () => rig.server.received.filter((r) => r.path === path).length,
    (n) => n >= count,
    { everyMs: 50 },
  );
  await rig.rt.poller.drain();
  return rig.server.received.filter((r) => r.path === path).map((r) => r.json as Record<string, unknown>);
}

test('@rudderstack/rudder-sdk-node delivers track and identify exactly once, and the data governance API describes them', async () => {
  const source = await connectedSource('/rudder');
  const errors: unknown[] = [];
  const client = new RudderAnalytics(source.writeKey, {
    dataPlaneUrl: rig.rt.dataUrl,
    flushAt: 10,
    logLevel: 'error',
    errorHandler: (e) => errors.push(e),
  });
  client.identify({ userId: 'ada', traits: { email: 'ada@example.com', plan: 'pro' } });
  client.track({ userId: 'ada', event: 'Order Completed', properties: { revenue: 42 } });
  await client.flush();
  const received = await receivedOn('/rudder', 2);
  expect(errors).toEqual([]);
  expect(received.map((e) => [e.type, e.userId, e.event ?? null])).toEqual([
    ['identify', 'ada', null],
    ['track', 'ada', 'Order Completed'],
  ]);
  expect(received[0]).toMatchObject({
    traits: { email: 'ada@example.com', plan: 'pro' },
    context: { library: { name: 'analytics-node' } },
  });
  expect(received[1]).toMatchObject({ properties: { revenue: 42 }, messageId: expect.any(String), receivedAt: expect.any(String) });
  expect(new Set(received.map((e) => e.messageId)).size).toBe(2);

  // The same events, as the data governance API describes them.
  const admin = basic(ADMIN.user, ADMIN.password);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  type Model = Record<string, any>;
  const models = (await call(rig.rt.dataUrl, 'GET', `/schemas/event-models?WriteKey=${source.writeKey}`, { auth: admin })).body as Model[];
  const track = models.find((m) => m.EventType === 'track');
  expect(models.map((m) => [m.EventType, m.EventIdentifier, m.TotalCount]).sort()).toEqual([
    ['identify', '', 1],
    ['track', 'Order Completed', 1],
  ]);
  expect(track!.Schema).toMatchObject({
    'context.library.name': 'string',
    'properties.revenue': 'float64',
    userId: 'string',
    messageId: 'string',
  });
  const metadata = (await call(rig.rt.dataUrl, 'GET', `/schemas/event-model/${track!.EventID}/metadata`, { auth: admin })).body;
  expect(metadata.SampledEvents.map((e: { messageId: string }) => e.messageId)).toEqual([received[1]!.messageId]);
});

test('@segment/analytics-node delivers track and identify exactly once', async () => {
  const source = await connectedSource('/segment');
  const analytics = new SegmentAnalytics({ writeKey: source.writeKey, host: rig.rt.dataUrl, flushAt: 10, maxRetries: 1 });
  const errors: unknown[] = [];
  analytics.on('error', (e) => errors.push(e));
  analytics.identify({ userId: 'grace', traits: { email: 'grace@example.com' } });
  analytics.track({ userId: 'grace', event: 'Report Viewed', properties: { pages: 3 } });
  await analytics.closeAndFlush({ timeout: 10_000 });
  const received = await receivedOn('/segment', 2);
  expect(errors).toEqual([]);
  expect(received.map((e) => [e.type, e.userId, e.event ?? null])).toEqual([
    ['identify', 'grace', null],
    ['track', 'grace', 'Report Viewed'],
  ]);
  expect(received[0]).toMatchObject({ traits: { email: 'grace@example.com' }, context: { library: { name: '@segment/analytics-node' } } });
  expect(new Set(received.map((e) => e.messageId)).size).toBe(2);
});
