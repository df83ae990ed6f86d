import { amplitude } from '../../support/destination-types';
import { buildRequests } from '../../../shared/destinations';
import { sendRequest } from '../../../shared/destinations/http-client';
import { json, startDestinationServer } from '../../support/destination-server';
import { deletionVendor, expectRefusals } from '../../support/vendor-suite';

/**
 * Amplitude, from its documentation: events through the HTTP V2 API (amplitude.com/docs/apis/analytics/http-v2,
 * "Upload request body parameters" and "Keys for the event argument"), users deleted through the User
 * Privacy API (amplitude.com/docs/apis/analytics/user-privacy, "Delete users").
 */
const config = (extra: Record<string, unknown> = {}) => amplitude.config.parse({ apiKey: 'KEY', ...extra });
const context = {
  ip: '203.0.113.9',
  os: { name: 'iOS', version: '17.1' },
  device: { manufacturer: 'Apple', model: 'iPhone15,2', type: 'ios' },
  app: { version: '2.3.0' },
  locale: 'en-GB',
};
const device = {
  platform: 'ios',
  os_name: 'iOS',
  os_version: '17.1',
  device_brand: 'Apple',
  device_model: 'iPhone15,2',
  app_version: '2.3.0',
  language: 'en-GB',
  ip: '203.0.113.9',
  library: 'weir',
};
const at = '2026-11-23T10:00:00.000Z';
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at, context };

/** The one request of an event, checked for the HTTP V2 envelope; returns its single event. */
function eventOf(message: Record<string, unknown>, extra?: Record<string, unknown>) {
  const requests = amplitude.transform!(message, config(extra));
  expect(requests).toHaveLength(1);
  const [request] = requests;
  expect(request).toMatchObject({
    version: '1',
    type: 'REST',
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: '*/*' },
    params: {},
  });
  expect(request!.body.JSON.api_key).toBe('KEY');
  return { endpoint: request!.endpoint, event: (request!.body.JSON.events as Record<string, unknown>[])[0] };
}

describe('Amplitude transform (HTTP V2 API)', () => {
  it('sends a track as an event with event_type, event_properties, ids, time in ms and insert_id', () => {
    const { endpoint, event } = eventOf({ ...base, type: 'track', event: 'Order Completed', properties: { revenue: 42, currency: 'EUR' } });
    expect(endpoint).toBe('https://api2.amplitude.com/2/httpapi');
    expect(event).toEqual({
      user_id: 'u-1',
      device_id: 'a-1',
      time: Date.parse(at),
      insert_id: 'm-1',
      ...device,
      event_type: 'Order Completed',
      event_properties: { revenue: 42, currency: 'EUR' },
      revenue: 42,
    });
  });

  it("counts revenue (price × quantity, else revenue, with productId and revenueType) and places events in the SDK's session (session_id, ms since epoch) (HTTP V2 event keys)", () => {
    const properties = { price: '19.99', quantity: 2, product_id: 'SKU-1', revenue_type: 'purchase' };
    const { event } = eventOf({ ...base, type: 'track', event: 'Product Bought', properties, context: { ...context, sessionId: 1795427900123 } });
    expect(event).toMatchObject({ price: 19.99, quantity: 2, productId: 'SKU-1', revenueType: 'purchase', session_id: 1795427900123 });
    const page = eventOf({ ...base, type: 'page', integrations: { Amplitude: { session_id: 1795427000000 } }, context: { ...context, sessionId: 5 } }).event;
    expect(page).toMatchObject({ session_id: 1795427000000 });
    expect(page).not.toHaveProperty('revenue');
    const plain = eventOf({ ...base, type: 'track', event: 'Clicked', properties: { price: 'free' } }).event;
    expect([plain!.session_id, plain!.price, plain!.revenue]).toEqual([undefined, undefined, undefined]);
  });

  it('sends an identify as $identify with the traits under user_properties.$set (HTTP V2: user property operations)', () => {
    const { event } = eventOf({ ...base, type: 'identify', traits: { email: 'ada@example.com', plan: 'pro' } });
    expect(event).toMatchObject({
      event_type: '$identify',
      user_properties: { $set: { email: 'ada@example.com', plan: 'pro' } },
      user_id: 'u-1',
    });
  });

  it('names pages and screens "Viewed <name> Page|Screen", keeping the name as a property', () => {
    expect(eventOf({ ...base, type: 'page', name: 'Pricing', properties: { url: 'https://x.io/p' } }).event).toMatchObject({
      event_type: 'Viewed Pricing Page',
      event_properties: { url: 'https://x.io/p', name: 'Pricing' },
    });
    expect(eventOf({ ...base, type: 'screen', name: 'Home' }).event).toMatchObject({
      event_type: 'Viewed Home Screen',
      event_properties: { name: 'Home' },
    });
    expect(eventOf({ ...base, type: 'page' }).event).toMatchObject({ event_type: 'Viewed Page' });
  });

  it('sends a group as the event\'s "groups" (group type → group id), the type from traits.groupType', () => {
    expect(eventOf({ ...base, type: 'group', groupId: 42, traits: { groupType: 'company' } }).event).toMatchObject({
      event_type: '$identify',
      groups: { company: '42' },
      user_properties: { $set: { company: '42' } },
    });
    expect(eventOf({ ...base, type: 'group', groupId: 'g-1' }).event).toMatchObject({ groups: { group: 'g-1' } });
  });

  it('sends an anonymous event with device_id only (HTTP V2: user_id or device_id is required)', () => {
    const { event } = eventOf({ type: 'track', event: 'x', anonymousId: 'a-9' });
    expect(event).toEqual({ device_id: 'a-9', event_type: 'x', event_properties: {}, library: 'weir' });
  });

  it('refuses what Amplitude cannot take, naming why', () => {
    expectRefusals(amplitude, config(), [
      [{ type: 'track', event: 'x' }, 'Amplitude needs a userId or an anonymousId (user_id or device_id)'],
      [{ type: 'track', userId: 'u' }, 'a track event needs an event name'],
      [{ type: 'group', userId: 'u' }, 'a group event needs a groupId'],
    ]);
    const alias = buildRequests(amplitude, { type: 'alias', userId: 'u', previousId: 'p' }, config());
    expect(alias).toEqual({ ok: false, error: expect.stringMatching(/^message type alias is not supported by Amplitude/) });
  });

  it('sends options.min_id_length 1, so Amplitude takes a userId or anonymousId shorter than 5 characters ("42")', async () => {
    const vendor = await startDestinationServer();
    try {
      // Amplitude's rule (HTTP V2, options.min_id_length, default 5): a shorter id is refused with a 400.
      vendor.on('/2/httpapi', (req, res) => {
        const body = req.json as { events: { user_id?: string; device_id?: string }[]; options?: { min_id_length?: number } };
        const min = body.options?.min_id_length ?? 5;
        const short = body.events.flatMap((e, i) => ([e.user_id, e.device_id].some((id) => id !== undefined && id.length < min) ? [i] : []));
        if (short.length > 0)
          return json(400, { code: 400, error: 'Invalid id length for user_id or device_id', events_with_invalid_id_lengths: { user_id: short } })(req, res);
        json(200, { code: 200, events_ingested: body.events.length })(req, res);
      });
      const built = buildRequests(amplitude, { ...base, userId: '42', anonymousId: 'a9', type: 'track', event: 'Signed Up' }, config({ baseUrl: vendor.url }));
      expect(built.ok).toBe(true);
      const [request] = built.ok ? built.requests : [];
      expect(request!.body.JSON.options).toEqual({ min_id_length: 1 });
      expect(await sendRequest(request!, { allowlist: '127.0.0.1' })).toMatchObject({ status: 200 });
    } finally {
      await vendor.close();
    }
  });

  it('uses the EU residency host, or the configured base URL', () => {
    expect(eventOf({ ...base, type: 'track', event: 'x' }, { residencyServer: 'EU' }).endpoint).toBe('https://api.eu.amplitude.com/2/httpapi');
    expect(eventOf({ ...base, type: 'track', event: 'x' }, { baseUrl: 'http://proxy.local:8080/amp/' }).endpoint).toBe('http://proxy.local:8080/amp/2/httpapi');
    expect(amplitude.config.safeParse({ apiKey: 'k', baseUrl: 'ftp://x' }).success).toBe(false);
    expect(amplitude.config.safeParse({}).success).toBe(false);
  });
});

describe('Amplitude user deletion (User Privacy API)', () => {
  const { vendor, io } = deletionVendor();
  const users = [{ userId: 'u-1', email: 'a@x.io' }, { userId: 'u-2' }];

  it('posts the user ids with Basic api key:secret key, and completes on a 200', async () => {
    vendor.on('/', json(200, { day: '2026-12-23', status: 'staging' }));
    const outcome = await amplitude.deleteUsers!(users, config({ apiSecret: 'SECRET', baseUrl: vendor.url }), io);
    expect(outcome).toEqual({ status: 'completed' });
    expect(vendor.received).toHaveLength(1);
    expect(vendor.received[0]).toMatchObject({
      method: 'POST',
      path: '/api/2/deletions/users',
      json: { user_ids: ['u-1', 'u-2'], requester: 'weir', ignore_invalid_id: 'True' },
    });
    expect(vendor.received[0]!.headers.authorization).toBe(`Basic ${Buffer.from('KEY:SECRET').toString('base64')}`);
  });

  it('maps the answers: 404 not found, 405/501 unsupported, 5xx and 429 retryable, other 4xx final, with what Amplitude said', async () => {
    const cfg = config({ apiSecret: 'SECRET', baseUrl: vendor.url });
    const cases: [number, unknown][] = [
      [404, { status: 'not_found', reason: 'Amplitude answered 404: {"error":"x"}' }],
      [501, { status: 'unsupported', reason: 'Amplitude answered 501: {"error":"x"}' }],
      [500, { status: 'failed', retryable: true, error: 'Amplitude answered 500: {"error":"x"}' }],
      [429, { status: 'failed', retryable: true, error: 'Amplitude answered 429: {"error":"x"}' }],
      [400, { status: 'failed', retryable: false, error: 'Amplitude answered 400: {"error":"x"}' }],
    ];
    for (const [status, expected] of cases) {
      vendor.on('/', json(status, { error: 'x' }));
      expect(await amplitude.deleteUsers!(users, cfg, io)).toEqual(expected);
    }
  });

  it('needs the secret key, and sends nothing without it', async () => {
    expect(await amplitude.deleteUsers!(users, config({ baseUrl: vendor.url }), io)).toEqual({
      status: 'failed',
      error: 'apiSecret is required to delete users',
      retryable: false,
    });
    expect(vendor.received).toEqual([]);
  });

  it('uses the EU privacy host when the residency is EU', async () => {
    const sent: string[] = [];
    await amplitude.deleteUsers!(users, config({ apiSecret: 's', residencyServer: 'EU' }), {
      send: async (r) => {
        sent.push(r.endpoint);
        return { status: 200, response: {}, retryable: false };
      },
    });
    expect(sent).toEqual(['https://analytics.eu.amplitude.com/api/2/deletions/users']);
  });
});
