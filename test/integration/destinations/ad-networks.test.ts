import { setTimeout as sleep } from 'node:timers/promises';
import { facebookConversions, pinterestConversions, snapchatConversions, tiktokAds } from '../../support/destination-types';
import type { DestinationType } from '../../../shared/destinations/types';
import { CONTEXT, ORDER } from '../../support/ad-events';
import { deliveryRig } from '../../support/delivery-rig';
import { json } from '../../support/destination-server';
import { call } from '../../support/runtime';
import { vendorPipeline } from '../../support/vendor-pipeline';
import { oneShard } from '../../support/ingest-items';

/**
 * The four ad networks live: the test interface's answer, one batch request for a stream batch, each vendor's
 * answer read as its reference documents it (Pinterest's per-event statuses, TikTok's codes in a 200, Meta's
 * whole-request refusals), and a 429 as a retryable verdict. A local server plays each vendor's API.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

interface Network {
  type: DestinationType;
  config: (path: string) => Record<string, unknown>;
  /** The vendor's path for the events, under the configured base URL. */
  eventsPath: string;
  /** What the vendor answers an accepted request of `count` events. */
  accepted: (count: number) => unknown;
}

const NETWORKS: Network[] = [
  {
    type: facebookConversions,
    config: (path) => ({ pixelId: 'PX1', accessToken: 'TOKEN', baseUrl: `${rig.server.url}${path}` }),
    eventsPath: '/v25.0/PX1/events',
    accepted: (count) => ({ events_received: count, messages: [], fbtrace_id: 'AbC' }),
  },
  {
    type: tiktokAds,
    config: (path) => ({ pixelCode: 'CPIX', accessToken: 'TOKEN', baseUrl: `${rig.server.url}${path}` }),
    eventsPath: '/open_api/v1.3/event/track/',
    accepted: () => ({ code: 0, message: 'OK', request_id: 'r-1', data: {} }),
  },
  {
    type: pinterestConversions,
    config: (path) => ({ adAccountId: '5497', conversionToken: 'TOKEN', baseUrl: `${rig.server.url}${path}` }),
    eventsPath: '/v5/ad_accounts/5497/events',
    accepted: (count) => ({ num_events_received: count, num_events_processed: count, events: Array.from({ length: count }, () => ({ status: 'processed' })) }),
  },
  {
    type: snapchatConversions,
    config: (path) => ({ pixelId: 'PIX-1', accessToken: 'TOKEN', baseUrl: `${rig.server.url}${path}` }),
    eventsPath: '/v3/PIX-1/events',
    accepted: () => ({ status: 'VALID', reason: 'SUCCESS' }),
  },
];

async function pipeline(network: Network, path: string) {
  const p = await vendorPipeline(rig, network.type.name, network.config(path));
  /** The `data` lists the vendor received, one per request. */
  const received = () =>
    rig.server.received.filter((r) => r.path === `${path}${network.eventsPath}`).map((r) => (r.json as { data: { event_id: string }[] }).data);
  return { ...p, received };
}

/** Users of one ingest shard: a request of theirs is stored, and delivered, as one batch. */
const user = oneShard('user-0');
/** An hour ago: within every network's age window (Meta keeps 7 days), whatever day the suite runs. */
const RECENT = new Date(Date.now() - 3600_000).toISOString();
const orders = (n: number, prefix: string) =>
  Array.from({ length: n }, (_, i) => ({ ...ORDER, messageId: `${prefix}-${i}`, userId: user(`user-${i % 3}`), timestamp: RECENT, context: CONTEXT }));

type Definition = { name: string; defaultConfig: string[]; fields: { name: string; type: string }[]; supportsTest: boolean; supportsDeletion: boolean };

describe('GET /destination-definitions', () => {
  it('lists the four with their configuration fields, the test interface supported and no user deletion', async () => {
    const answer = await call(rig.rt.controlUrl, 'GET', '/destination-definitions');
    const byName = new Map((answer.body as Definition[]).map((d) => [d.name, d]));
    const summary = (name: string) => {
      const d = byName.get(name);
      return d && { defaultConfig: d.defaultConfig, supportsTest: d.supportsTest, supportsDeletion: d.supportsDeletion };
    };
    const shape = (defaultConfig: string[]) => ({ defaultConfig, supportsTest: true, supportsDeletion: false });
    expect(summary('FACEBOOK_CONVERSIONS')).toEqual(
      shape(['pixelId', 'accessToken', 'apiVersion', 'actionSource', 'testEventCode', 'eventMap', 'phoneCountryCode', 'baseUrl']),
    );
    expect(summary('TIKTOK_ADS')).toEqual(shape(['pixelCode', 'accessToken', 'testEventCode', 'eventMap', 'phoneCountryCode', 'baseUrl']));
    expect(summary('PINTEREST_CONVERSIONS')).toEqual(shape(['adAccountId', 'conversionToken', 'eventMap', 'phoneCountryCode', 'baseUrl']));
    expect(summary('SNAPCHAT_CONVERSIONS')).toEqual(shape(['pixelId', 'accessToken', 'eventMap', 'phoneCountryCode', 'baseUrl']));
    expect(byName.get('TIKTOK_ADS')!.fields.find((f) => f.name === 'eventMap')).toMatchObject({ type: 'pairs', required: false });
  });
});

describe.each(NETWORKS.map((n) => [n.type.displayName, n] as const))('%s live', (_name, network) => {
  const slug = network.type.name.toLowerCase();

  it("answers the test interface with the request it built and the vendor's answer", async () => {
    const path = `/${slug}-ti`;
    rig.server.on(`${path}${network.eventsPath}`, json(200, network.accepted(1)));
    const p = await pipeline(network, path);
    const answer = await p.testDestination({ message: ORDER, stage: { dest_transform: true, send_to_destination: true } });
    expect(answer.status).toBe(200);
    const expected = network.type.transform!(ORDER, network.type.config.parse(network.config(path)) as never);
    expect(answer.body.data).toEqual([{ dest_transformed_payload: expected, destination_response: [network.accepted(1)], destination_response_status: [200] }]);
    const [sent] = rig.server.received.filter((r) => r.path === `${path}${network.eventsPath}`);
    expect(sent!.json).toEqual(expected[0]!.body.JSON);
    expect(sent!.query).toEqual(expected[0]!.params);
  });

  it('sends a stream batch as one request, each event with its messageId as event_id, counted once', async () => {
    const path = `/${slug}-batch`;
    rig.server.on(`${path}${network.eventsPath}`, (req, res) => json(200, network.accepted((req.json as { data: unknown[] }).data.length))(req, res));
    const p = await pipeline(network, path);
    const pages = Array.from({ length: 3 }, (_, i) => ({
      type: 'page',
      messageId: `page-${i}`,
      anonymousId: user.anonymousId(`anon-${i}`),
      timestamp: RECENT,
      context: CONTEXT,
    }));
    await p.send([...orders(4, 'order'), ...pages]);
    await p.flow(1);
    const requests = p.received();
    expect(requests).toHaveLength(1);
    expect(requests[0]!.map((e) => e.event_id)).toEqual(['order-0', 'order-1', 'order-2', 'order-3', 'page-0', 'page-1', 'page-2']);
    expect(await p.outcomes()).toMatchObject({ delivered: 7, retrying: 0, aborted: 0 });
  });

  it('parks a chunk answered 429 (retryable), and delivers it when the vendor takes it again', async () => {
    const path = `/${slug}-429`;
    let answers = 0;
    rig.server.on(`${path}${network.eventsPath}`, (req, res) => {
      if (answers++ === 0) return json(429, { error: 'Too many requests' })(req, res);
      json(200, network.accepted((req.json as { data: unknown[] }).data.length))(req, res);
    });
    const p = await pipeline(network, path);
    await p.send(orders(3, 'busy'));
    await rig.rt.poller.drain();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 3, aborted: 0 });
    await p.flow(12);
    expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 0, aborted: 0 });
  });
});

describe("the vendors' answers, read as their references document them", () => {
  const pinterest = NETWORKS[2]!;
  const tiktok = NETWORKS[1]!;
  const facebook = NETWORKS[0]!;

  it("Pinterest: a 422's per-event statuses are the verdicts: the failed event is aborted, the others delivered and not sent again", async () => {
    const path = '/pin-422';
    rig.server.on(`${path}${pinterest.eventsPath}`, (req, res) => {
      const sent = (req.json as { data: { event_id: string }[] }).data;
      const events = sent.map((e) => (e.event_id === 'pin-1' ? { status: 'failed', error_message: 'Invalid event_time' } : { status: 'processed' }));
      json(422, { num_events_received: sent.length, num_events_processed: sent.length - 1, events })(req, res);
    });
    const p = await pipeline(pinterest, path);
    await p.send(orders(4, 'pin'));
    await p.flow(3);
    expect(p.received().map((data) => data.map((e) => e.event_id))).toEqual([['pin-0', 'pin-1', 'pin-2', 'pin-3']]);
    const outcomes = await p.outcomes();
    expect(outcomes).toMatchObject({ delivered: 3, retrying: 0, aborted: 1 });
    expect(JSON.stringify(outcomes)).toContain('Pinterest failed the event: Invalid event_time');
  });

  it('TikTok: a 200 whose code refuses the request aborts its events; code 40100 (rate limit) parks them', async () => {
    const refused = await pipeline(tiktok, '/tt-refused');
    rig.server.on(`/tt-refused${tiktok.eventsPath}`, json(200, { code: 40002, message: 'Invalid pixel code', request_id: 'r' }));
    await refused.send(orders(2, 'tt'));
    await refused.flow(1);
    expect(await refused.outcomes()).toMatchObject({ delivered: 0, retrying: 0, aborted: 2 });
    const limited = await pipeline(tiktok, '/tt-limited');
    rig.server.on(`/tt-limited${tiktok.eventsPath}`, json(200, { code: 40100, message: 'Too many requests', request_id: 'r' }));
    await limited.send(orders(2, 'tl'));
    await rig.rt.poller.drain();
    expect(await limited.outcomes()).toMatchObject({ delivered: 0, retrying: 2, aborted: 0 });
  });

  it('Meta: answers the request as a whole: an invalid parameter aborts every event of the chunk; a throttling code parks them', async () => {
    const invalid = await pipeline(facebook, '/fb-invalid');
    rig.server.on(`/fb-invalid${facebook.eventsPath}`, json(400, { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100 } }));
    await invalid.send(orders(3, 'fb'));
    await invalid.flow(1);
    expect(await invalid.outcomes()).toMatchObject({ delivered: 0, retrying: 0, aborted: 3 });
    const throttled = await pipeline(facebook, '/fb-throttled');
    rig.server.on(`/fb-throttled${facebook.eventsPath}`, json(400, { error: { message: 'User request limit reached', code: 17 } }));
    await throttled.send(orders(2, 'ft'));
    await rig.rt.poller.drain();
    expect(await throttled.outcomes()).toMatchObject({ delivered: 0, retrying: 2, aborted: 0 });
  });

  it("Pinterest: a 429 with Retry-After parks the chunk's events until then, though the retry delay is shorter", async () => {
    const path = '/pin-retry-after';
    const times: number[] = [];
    rig.server.on(`${path}${pinterest.eventsPath}`, (req, res) => {
      times.push(Date.now());
      if (times.length === 1) {
        res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '3' });
        return res.end(JSON.stringify({ code: 8, message: 'This request exceeded a rate limit.' }));
      }
      json(200, pinterest.accepted((req.json as { data: unknown[] }).data.length))(req, res);
    });
    const p = await pipeline(pinterest, path);
    await p.send(orders(3, 'wait'));
    await rig.rt.poller.drain();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 3 });
    // The policy's retries are due after 20 ms: the scheduler runs often within the three seconds asked, sending nothing.
    let rounds = 0;
    while (Date.now() < times[0]! + 2500) {
      await sleep(100);
      await rig.rt.scheduler.runNow();
      rounds++;
    }
    expect(rounds).toBeGreaterThan(1);
    // However slow a round, none sent before the time asked.
    expect(times.slice(1).filter((t) => t - times[0]! < 3000)).toEqual([]);
    await sleep(Math.max(0, times[0]! + 3000 - Date.now()));
    await p.flow(2);
    expect(times.length).toBeGreaterThan(1);
    expect(Math.min(...times.slice(1)) - times[0]!).toBeGreaterThanOrEqual(3000);
    expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 0, aborted: 0 });
  });
});
