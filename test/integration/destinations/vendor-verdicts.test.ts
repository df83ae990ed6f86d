import { CONTEXT, ORDER } from '../../support/ad-events';
import { deliveryRig } from '../../support/delivery-rig';
import { json, type ReceivedRequest } from '../../support/destination-server';
import { oneShard } from '../../support/ingest-items';
import { vendorPipeline } from '../../support/vendor-pipeline';

/**
 * The generic mechanisms of the destination contract, live, against local servers playing the vendors: an
 * event outside its vendor's age window aborted alone (funnel class `age`), per-item verdicts in a 2xx (Braze's
 * errors[]), and a chunk refused as a whole for its content sent again in halves until only the bad event is
 * left. (A throttling answer under another status, BigQuery's 403: bigquery-delivery.test.ts.)
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';
const rig = deliveryRig();

/** Users of one ingest shard: a request of theirs is stored, and delivered, as one batch. */
const user = oneShard('user-0');
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const DAY = 24 * 3600_000;
const orders = (n: number, prefix: string, at: (i: number) => string = () => ago(60_000)) =>
  Array.from({ length: n }, (_, i) => ({ ...ORDER, messageId: `${prefix}-${i}`, userId: user(`user-${i % 3}`), timestamp: at(i), context: CONTEXT }));

const facebook = (path: string) => ({ pixelId: 'PX1', accessToken: 'TOKEN', baseUrl: `${rig.server.url}${path}` });
const FB_EVENTS = '/v25.0/PX1/events';
const eventIds = (r: ReceivedRequest) => (r.json as { data: { event_id: string }[] }).data.map((e) => e.event_id);

describe("an event outside its vendor's age window", () => {
  it("one event older than Facebook's 7 days in a chunk of a thousand: the 999 others are delivered, it is aborted alone with its reason, in the funnel's class age", async () => {
    const path = '/fb-age';
    rig.server.on(`${path}${FB_EVENTS}`, (req, res) => json(200, { events_received: eventIds(req).length, messages: [] })(req, res));
    const p = await vendorPipeline(rig, 'FACEBOOK_CONVERSIONS', facebook(path));
    await p.send(orders(1000, 'age', (i) => (i === 500 ? ago(7 * DAY + 3600_000) : ago(60_000))));
    await p.flow(1);
    const sent = rig.server.received.filter((r) => r.path === `${path}${FB_EVENTS}`).map(eventIds);
    // The rest of the chunk goes, each once; the old event never.
    expect(sent.flat()).toHaveLength(999);
    expect(new Set(sent.flat()).size).toBe(999);
    expect(sent.flat()).not.toContain('age-500');
    expect(sent[0]!.length).toBeGreaterThan(1);
    expect(await p.outcomes()).toMatchObject({ delivered: 999, aborted: 1, retrying: 0 });
    expect(await p.delivery()).toMatchObject({ routed: 1000, delivered: 999, aborted: { total: 1, age: 1, http4xx: 0 } });
    const { failures } = await p.failures();
    expect(failures.map((f) => [f.messageId, f.reason, f.error])).toEqual([['age-500', 'age', "older than Facebook's 7 days"]]);
  }, 90_000);

  it('GA4 keeps events of the last 72 hours only, and none more than an hour ahead: the others are aborted with the limit named', async () => {
    const path = '/ga-age';
    const p = await vendorPipeline(rig, 'GA4', { apiSecret: 'secret', measurementId: 'G-1', baseUrl: `${rig.server.url}${path}` });
    const times = [ago(60_000), ago(73 * 3600_000), ago(-2 * 3600_000)];
    await p.send(times.map((timestamp, i) => ({ type: 'track', anonymousId: 'client-a', event: `e${i}`, messageId: `ga-${i}`, timestamp })));
    await p.flow(1);
    const sent = rig.server.received.filter((r) => r.path === `${path}/mp/collect`).flatMap((r) => (r.json as { events: { name: string }[] }).events);
    expect(sent.map((e) => e.name)).toEqual(['e0']);
    const { failures } = await p.failures();
    expect(failures.map((f) => [f.messageId, f.reason, f.error]).sort()).toEqual([
      ['ga-1', 'age', "older than GA4's 72 hours"],
      ['ga-2', 'age', "dated ahead of now, past GA4's tolerance"],
    ]);
  });

  it('Mixpanel without apiSecret (/track) keeps events of the last 5 days; with apiSecret (/import) an older one goes', async () => {
    const old = { type: 'track', userId: 'u-1', event: 'Old', messageId: 'mp-old', timestamp: ago(6 * DAY) };
    const track = await vendorPipeline(rig, 'MP', { token: 'tok', baseUrl: `${rig.server.url}/mp-track` });
    await track.send([old]);
    await track.flow(1);
    expect(rig.server.received.filter((r) => r.path.startsWith('/mp-track'))).toEqual([]);
    expect((await track.failures()).failures.map((f) => f.error)).toEqual(["older than Mixpanel's 5 days on /track"]);
    const imported = await vendorPipeline(rig, 'MP', { token: 'tok', apiSecret: 'secret', baseUrl: `${rig.server.url}/mp-import` });
    await imported.send([old]);
    await imported.flow(1);
    expect(rig.server.received.filter((r) => r.path === '/mp-import/import')).toHaveLength(1);
    expect(await imported.outcomes()).toMatchObject({ delivered: 1, aborted: 0 });
  });
});

describe('per-item verdicts in a 2xx', () => {
  it('Braze: a 2xx whose errors[] names objects by input_array and index aborts only those events; the others are delivered and not sent again', async () => {
    const path = '/braze-errors';
    rig.server.on(`${path}/users/track`, json(201, { message: 'success', errors: [{ type: "'name' is required", input_array: 'events', index: 1 }] }));
    const p = await vendorPipeline(rig, 'BRAZE', { restApiKey: 'key', restEndpoint: `${rig.server.url}${path}` });
    // attributes: the identifies (events 0 and 3); events: the tracks (1, 2, 4); events[1] is event 2.
    const sent = [0, 1, 2, 3, 4].map((i) =>
      i % 3 === 0
        ? { type: 'identify', userId: user(`user-${i}`), traits: { plan: 'pro' }, messageId: `bz-${i}` }
        : { type: 'track', userId: user(`user-${i}`), event: `e${i}`, messageId: `bz-${i}` },
    );
    await p.send(sent);
    await p.flow(3);
    const requests = rig.server.received.filter((r) => r.path === `${path}/users/track`);
    expect(requests).toHaveLength(1);
    expect(await p.outcomes()).toMatchObject({ delivered: 4, aborted: 1, retrying: 0 });
    const { failures } = await p.failures();
    expect(failures.map((f) => [f.messageId, f.reason, f.error])).toEqual([['bz-2', 'vendor', "Braze refused it: 'name' is required"]]);
  });
});

describe('a 2xx whose body says refused', () => {
  it("Mixpanel's profile updates (verbose=1): a batch answered {status: 0} is sent again update by update, and only the one refused is aborted, with Mixpanel's error", async () => {
    const path = '/mp-verbose';
    // Mixpanel answers 200 whatever it did; with verbose=1 the body says so. It refuses any batch holding user-1's update.
    rig.server.on(`${path}/engage`, (req, res) => {
      const refused = JSON.stringify(req.json).includes('"$distinct_id":"' + user('user-1') + '"');
      json(200, refused ? { status: 0, error: "'$set' must be an object" } : { status: 1, error: null })(req, res);
    });
    const p = await vendorPipeline(rig, 'MP', { token: 'tok', baseUrl: `${rig.server.url}${path}` });
    await p.send(
      [0, 1, 2].map((i) => ({ type: 'identify', userId: user(`user-${i}`), traits: { plan: 'pro' }, context: { ip: '203.0.113.7' }, messageId: `mpv-${i}` })),
    );
    await p.flow(4);
    const requests = rig.server.received.filter((r) => r.path === `${path}/engage`);
    expect(requests.every((r) => r.query.verbose === '1')).toBe(true);
    // One request of three, then each update alone.
    expect(requests.map((r) => (r.json as unknown[]).length)).toEqual([3, 1, 1, 1]);
    expect((requests[0]!.json as { $ip: string }[]).map((u) => u.$ip)).toEqual(['203.0.113.7', '203.0.113.7', '203.0.113.7']);
    expect(await p.outcomes()).toMatchObject({ delivered: 2, aborted: 1, retrying: 0 });
    const { failures } = await p.failures();
    expect(failures.map((f) => [f.messageId, f.error])).toEqual([['mpv-1', "Mixpanel refused the profile update: '$set' must be an object"]]);
  });
});

describe('a chunk refused as a whole for its content', () => {
  it('is sent again in halves down to one event: exactly the bad event is aborted, every other delivered once', async () => {
    const path = '/fb-split';
    const accepted: string[] = [];
    rig.server.on(`${path}${FB_EVENTS}`, (req, res) => {
      const ids = eventIds(req);
      if (ids.includes('split-6')) return json(400, { error: { message: 'Invalid parameter', type: 'OAuthException', code: 100, fbtrace_id: 'x' } })(req, res);
      accepted.push(...ids);
      json(200, { events_received: ids.length, messages: [] })(req, res);
    });
    const p = await vendorPipeline(rig, 'FACEBOOK_CONVERSIONS', facebook(path));
    await p.send(orders(10, 'split'));
    await p.flow(1);
    const requests = rig.server.received.filter((r) => r.path === `${path}${FB_EVENTS}`).map(eventIds);
    expect(requests[0]).toHaveLength(10);
    // Halves: 10 → 5 + 5, the bad half 3 + 2, then 2 + 1, then 1 + 1: log2 of the chunk's size in requests, not one per event.
    expect(requests.length).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(10)) + 1);
    expect(accepted.sort()).toEqual(
      Array.from({ length: 10 }, (_, i) => `split-${i}`)
        .filter((id) => id !== 'split-6')
        .sort(),
    );
    expect(await p.outcomes()).toMatchObject({ delivered: 9, aborted: 1, retrying: 0 });
    const { failures } = await p.failures();
    expect(failures.map((f) => [f.messageId, f.reason])).toEqual([['split-6', 'http4xx']]);
    expect(failures[0]!.error).toContain('Invalid parameter');
  });

  it("a refusal about the credentials or setup (Meta's code 190, an invalid access token) stays whole: one request, every event aborted", async () => {
    const path = '/fb-token';
    rig.server.on(`${path}${FB_EVENTS}`, json(400, { error: { message: 'Invalid OAuth access token.', type: 'OAuthException', code: 190 } }));
    const p = await vendorPipeline(rig, 'FACEBOOK_CONVERSIONS', facebook(path));
    await p.send(orders(6, 'token'));
    await p.flow(1);
    expect(rig.server.received.filter((r) => r.path === `${path}${FB_EVENTS}`)).toHaveLength(1);
    expect(await p.outcomes()).toMatchObject({ delivered: 0, aborted: 6, retrying: 0 });
  });
});
