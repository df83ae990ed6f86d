import { buildRequests } from '../../../shared/destinations';
import { klaviyo } from '../../support/destination-types';
import { deliveryRig } from '../../support/delivery-rig';
import { json } from '../../support/destination-server';
import { noContent, vendorPipeline } from '../../support/vendor-pipeline';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Klaviyo, from its API reference (developers.klaviyo.com/en/reference, revision 2026-07-15, and the OpenAPI
 * documents of github.com/klaviyo/openapi): "Create or Update Profile" (POST /api/profile-import), "Create
 * Event" (POST /api/events: properties, time, value, value_currency, unique_id, metric, profile; answered 202),
 * "Request Profile Deletion" (POST /api/data-privacy-deletion-jobs, one identifier per job), "API overview"
 * (Klaviyo-API-Key authentication, the revision header, JSON:API content type). Expected requests are written
 * out from those pages.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';

const config = (extra: Record<string, unknown> = {}) => klaviyo.config.parse({ privateApiKey: 'pk_KEY', ...extra });
const headers = {
  Authorization: 'Klaviyo-API-Key pk_KEY',
  revision: '2026-07-15',
  Accept: 'application/vnd.api+json',
  'Content-Type': 'application/vnd.api+json',
};
const at = '2026-11-23T10:00:00.000Z';
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

const expected = (path: string, body: Record<string, unknown>, userId: string | undefined = 'a-1', host = 'https://a.klaviyo.com') =>
  jsonPost(`${host}${path}`, headers, body, userId);

const event = (attributes: Record<string, unknown>) => ({ data: { type: 'event', attributes } });

describe('Klaviyo transform (profile import, events)', () => {
  it('identify: a profile by email, phone_number and external_id, its named fields, location, the other traits as properties', () => {
    const traits = {
      email: 'ada@example.com',
      phone: '+15005550006',
      firstName: 'Ada',
      lastName: 'Lovelace',
      company: 'Analytical Engines',
      title: 'Programmer',
      avatar: 'https://x.io/ada.png',
      address: { street: '12 St James Sq', city: 'London', state: 'LND', postalCode: 'SW1Y', country: 'GB' },
      plan: 'pro',
      seats: 3,
    };
    const message = { ...base, type: 'identify', traits, context: { ip: '203.0.113.9', locale: 'en-GB' } };
    expect(klaviyo.transform!(message, config())).toEqual([
      expected('/api/profile-import', {
        data: {
          type: 'profile',
          attributes: {
            email: 'ada@example.com',
            phone_number: '+15005550006',
            external_id: 'u-1',
            first_name: 'Ada',
            last_name: 'Lovelace',
            organization: 'Analytical Engines',
            title: 'Programmer',
            image: 'https://x.io/ada.png',
            locale: 'en-GB',
            location: { address1: '12 St James Sq', city: 'London', region: 'LND', zip: 'SW1Y', country: 'GB', ip: '203.0.113.9' },
            properties: { plan: 'pro', seats: 3 },
          },
        },
      }),
    ]);
  });

  it('track: an event of the metric named by the event, the profile, the time, value and value_currency from revenue, unique_id = messageId', () => {
    const properties = { order_id: 'o-9', revenue: 42.5, currency: 'eur', products: [{ sku: 'p-1' }] };
    const message = { ...base, type: 'track', event: 'Order Completed', properties, context: { traits: { email: 'ada@example.com' } } };
    expect(klaviyo.transform!(message, config())).toEqual([
      expected(
        '/api/events',
        event({
          properties,
          time: at,
          value: 42.5,
          value_currency: 'EUR',
          unique_id: 'm-1',
          metric: { data: { type: 'metric', attributes: { name: 'Order Completed' } } },
          profile: { data: { type: 'profile', attributes: { email: 'ada@example.com', external_id: 'u-1', anonymous_id: 'a-1' } } },
        }),
      ),
    ]);
  });

  it('track: an anonymous event names its profile by anonymous_id; no revenue, no value', () => {
    const message = { type: 'track', event: 'Viewed Product', anonymousId: 'a-9', messageId: 'm-2', timestamp: at, properties: { sku: 'p-1' } };
    expect(klaviyo.transform!(message, config())).toEqual([
      expected(
        '/api/events',
        event({
          properties: { sku: 'p-1' },
          time: at,
          unique_id: 'm-2',
          metric: { data: { type: 'metric', attributes: { name: 'Viewed Product' } } },
          profile: { data: { type: 'profile', attributes: { anonymous_id: 'a-9' } } },
        }),
        'a-9',
      ),
    ]);
  });

  it('sends to baseUrl where given (proxies, tests)', () => {
    expect(klaviyo.transform!({ ...base, type: 'track', event: 'x' }, config({ baseUrl: 'http://proxy.local:81/kl/' }))[0]!.endpoint).toBe(
      'http://proxy.local:81/kl/api/events',
    );
  });

  it('refuses what Klaviyo cannot take, naming why', () => {
    const cfg = config();
    expectRefusals(klaviyo, cfg, [
      [{ type: 'identify', anonymousId: 'a', traits: { name: 'Ada' } }, 'Klaviyo needs an email, a phone or a userId (external_id) to identify a profile'],
      [{ type: 'track', event: 'x' }, 'Klaviyo needs an email, a phone, a userId or an anonymousId on the track event'],
      [{ type: 'track', userId: 'u', event: 'x'.repeat(128) }, `Klaviyo metric names are under 128 characters; "${'x'.repeat(40)}..." has 128`],
      [{ type: 'group', userId: 'u', groupId: 'g' }, 'message type group is not supported by Klaviyo (profiles come from identify, events from track)'],
    ]);
  });

  it('sends phone_number in E.164 only: "+" or "00" numbers reduced to it, national ones with phoneCountryCode, others left out or refused naming the number', () => {
    const phoneOf = (phone: string, extra?: Record<string, unknown>) => {
      const [request] = klaviyo.transform!({ ...base, type: 'identify', traits: { email: 'ada@example.com', phone } }, config(extra));
      return ((request!.body.JSON.data as { attributes: { phone_number?: string } }).attributes ?? {}).phone_number;
    };
    expect(phoneOf('+1 (415) 555-0100')).toBe('+14155550100');
    expect(phoneOf('0044 20 7946 0958')).toBe('+442079460958');
    expect(phoneOf('020 7946 0958')).toBeUndefined();
    expect(phoneOf('020 7946 0958', { phoneCountryCode: '44' })).toBe('+442079460958');
    expect(phoneOf('+12')).toBeUndefined();
    expect(buildRequests(klaviyo, { type: 'identify', anonymousId: 'a', traits: { phone: '555-0100' } }, config())).toEqual({
      ok: false,
      error:
        'Klaviyo needs an email, a phone or a userId (external_id) to identify a profile (its phone is no E.164 number: write it with + and its country code, or configure phoneCountryCode)',
    });
  });

  it('validates the configuration: a private key, an http(s) baseUrl, no unknown keys; no batch API is used', () => {
    expect(klaviyo.config.safeParse({ privateApiKey: 'pk' }).success).toBe(true);
    expect(klaviyo.config.safeParse({}).success).toBe(false);
    expect(klaviyo.config.safeParse({ privateApiKey: 'pk', baseUrl: 'file:///x' }).success).toBe(false);
    expect(klaviyo.config.safeParse({ privateApiKey: 'pk', publicKey: 'x' }).success).toBe(false);
    expect(klaviyo.batch).toBeUndefined();
  });
});

describe('Klaviyo user deletion (Request Profile Deletion)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = () => config({ baseUrl: vendor.url });
  const job = (identifier: Record<string, string>) => ({
    data: { type: 'data-privacy-deletion-job', attributes: { profile: { data: { type: 'profile', attributes: identifier } } } },
  });

  it('requests one deletion job per profile, by email else phone_number, and completes on 202s', async () => {
    vendor.on('/', json(202, {}));
    const users = [
      { userId: 'u-1', email: 'ada@example.com', phone: '+15005550006' },
      { userId: 'u-2', phone: '+15005550007' },
    ];
    expect(await klaviyo.deleteUsers!(users, cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.headers.revision, r.headers['content-type'], r.json])).toEqual([
      ['POST', '/api/data-privacy-deletion-jobs', 'Klaviyo-API-Key pk_KEY', '2026-07-15', 'application/vnd.api+json', job({ email: 'ada@example.com' })],
      ['POST', '/api/data-privacy-deletion-jobs', 'Klaviyo-API-Key pk_KEY', '2026-07-15', 'application/vnd.api+json', job({ phone_number: '+15005550007' })],
    ]);
  });

  it('counts a 404 as already deleted, and stops at a 405 as unsupported', async () => {
    vendor.on('/', json(404, { errors: [{ code: 'not_found' }] }));
    expect(await klaviyo.deleteUsers!([{ userId: 'u-1', email: 'a@x.io' }], cfg(), io)).toEqual({ status: 'completed' });
    vendor.on('/', json(405, { errors: [{ code: 'method_not_allowed' }] }));
    expect(
      await klaviyo.deleteUsers!(
        [
          { userId: 'u-1', email: 'a@x.io' },
          { userId: 'u-2', email: 'b@x.io' },
        ],
        cfg(),
        io,
      ),
    ).toEqual({
      status: 'unsupported',
      reason: 'Klaviyo answered 405: {"errors":[{"code":"method_not_allowed"}]}',
    });
    expect(vendor.received).toHaveLength(2);
  });

  it('fails finally for a user with neither identifier (after the others), and retryably on a 429', async () => {
    vendor.on('/', json(202, {}));
    expect(await klaviyo.deleteUsers!([{ userId: 'u-1' }, { userId: 'u-2', email: 'b@x.io' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'Klaviyo deletes profiles by email or phone; user u-1 has neither',
    });
    expect(vendor.received).toHaveLength(1);
    vendor.on('/', json(429, { errors: [{ id: 'e', code: 'throttled', title: 'Request was throttled.', detail: 'Expected available in 1 second.' }] }));
    expect(await klaviyo.deleteUsers!([{ userId: 'u-2', email: 'b@x.io' }], cfg(), io)).toMatchObject({ status: 'failed', retryable: true });
  });
});

describe('Klaviyo live delivery and test interface', () => {
  const rig = deliveryRig();
  const destination = (path: string) => ({ privateApiKey: 'pk_KEY', baseUrl: `${rig.server.url}${path}` });
  const received = (path: string) => rig.server.received.filter((r) => r.path.startsWith(path));

  it('sends one request per event, each with its unique_id, and a profile import per identify', async () => {
    const p = await vendorPipeline(rig, 'KLAVIYO', destination('/kl1'));
    rig.server.on('/kl1/api/events', json(202, {}));
    rig.server.on('/kl1/api/profile-import', json(201, { data: { type: 'profile', id: '01H' } }));
    await p.send([
      { type: 'identify', userId: 'u-1', messageId: 'i-1', traits: { email: 'ada@example.com' } },
      ...[1, 2, 3].map((i) => ({ type: 'track', userId: 'u-1', event: 'Viewed Product', messageId: `t-${i}` })),
    ]);
    await p.flow();
    expect(received('/kl1/api/events').map((r) => (r.json as ReturnType<typeof event>).data.attributes.unique_id)).toEqual(['t-1', 't-2', 't-3']);
    expect(received('/kl1/api/profile-import')).toHaveLength(1);
    expect(received('/kl1')[0]!.headers).toMatchObject({
      authorization: 'Klaviyo-API-Key pk_KEY',
      revision: '2026-07-15',
      'content-type': 'application/vnd.api+json',
    });
    expect(await p.outcomes()).toMatchObject({ delivered: 4, retrying: 0, aborted: 0 });
  });

  it('parks an event answered 429 and delivers it on a later round; a 400 aborts', async () => {
    const p = await vendorPipeline(rig, 'KLAVIYO', destination('/kl429'));
    let answers = 0;
    rig.server.on('/kl429', (req, res) => {
      const id = (req.json as ReturnType<typeof event>).data.attributes.unique_id;
      if (id === 'bad') return json(400, { errors: [{ id: 'e', code: 'invalid', title: 'Invalid input.', detail: 'bad metric' }] })(req, res);
      return answers++ === 0 ? json(429, { errors: [{ code: 'throttled' }] })(req, res) : json(202, {})(req, res);
    });
    await p.send([
      { type: 'track', userId: 'u-1', event: 'x', messageId: 'first' },
      { type: 'track', userId: 'u-2', event: 'x', messageId: 'bad' },
    ]);
    await p.flow();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 1, aborted: 1 });
    await p.flow(12);
    expect(await p.outcomes()).toMatchObject({ delivered: 1, retrying: 0, aborted: 1 });
  });

  it('answers the test interface with the event request and what Klaviyo said', async () => {
    const p = await vendorPipeline(rig, 'KLAVIYO', destination('/kltest'));
    rig.server.on('/kltest', noContent);
    rig.server.on('/kltest/api/events', json(202, {}));
    const body = await p.test({ ...base, type: 'track', event: 'Started Checkout', properties: { value: 10 } });
    expect(body.destination).toBe('KLAVIYO');
    expect(body.data).toEqual([
      {
        dest_transformed_payload: [
          expected(
            '/api/events',
            event({
              properties: { value: 10 },
              time: at,
              value: 10,
              unique_id: 'm-1',
              metric: { data: { type: 'metric', attributes: { name: 'Started Checkout' } } },
              profile: { data: { type: 'profile', attributes: { external_id: 'u-1', anonymous_id: 'a-1' } } },
            }),
            'a-1',
            `${rig.server.url}/kltest`,
          ),
        ],
        destination_response: [{}],
        destination_response_status: [202],
      },
    ]);
  });
});
