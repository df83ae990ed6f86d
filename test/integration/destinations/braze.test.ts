import { buildRequests } from '../../../shared/destinations';
import { braze } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Braze, from its REST API documentation (braze.com/docs/api): "POST: Track users" with the User attributes,
 * Event and Purchase objects, "POST: Merge users", "POST: Delete users", and the instance table of "API and SDK
 * endpoints". Expected requests are written out from those pages.
 */
const config = (extra: Record<string, unknown> = {}) => braze.config.parse({ restApiKey: 'KEY', dataCenter: 'US-03', ...extra });
const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer KEY' };
const at = '2026-11-23T10:00:00.000Z';
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

/** The whole §2.7 request of a POST to the US-03 instance. */
const expected = (path: string, body: Record<string, unknown>, userId: string | undefined = 'a-1') =>
  jsonPost(`https://rest.iad-03.braze.com${path}`, headers, body, userId);

describe('Braze transform (POST /users/track, /users/merge)', () => {
  it('identify: Braze user profile fields from the traits, the rest as custom attributes, external_id = userId (User attributes object)', () => {
    const traits = {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+441234567890',
      gender: 'female',
      birthday: '1990-05-17T00:00:00.000Z',
      address: { city: 'London', country: 'GB' },
      avatar: 'https://x.io/ada.png',
      plan: 'pro',
      seats: 3,
    };
    expect(braze.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      // POST: Identify users: the alias-only profile of the user's anonymous events is merged into the identified one.
      expected('/users/identify', {
        aliases_to_identify: [{ external_id: 'u-1', user_alias: { alias_name: 'a-1', alias_label: 'weir_anon_id' } }],
        merge_behavior: 'merge',
      }),
      expected('/users/track', {
        attributes: [
          {
            external_id: 'u-1',
            email: 'ada@example.com',
            first_name: 'Ada',
            last_name: 'Lovelace',
            phone: '+441234567890',
            gender: 'F',
            dob: '1990-05-17',
            country: 'GB',
            home_city: 'London',
            image_url: 'https://x.io/ada.png',
            plan: 'pro',
            seats: 3,
          },
        ],
      }),
    ]);
  });

  it('track: a custom event with name, ISO time, properties and app_id (Event object); "$" properties are dropped', () => {
    const message = { ...base, type: 'track', event: 'Trial Started', properties: { plan: 'pro', $internal: 1 } };
    expect(braze.transform!(message, config({ appKey: 'APP' }))).toEqual([
      expected('/users/track', {
        events: [{ external_id: 'u-1', app_id: 'APP', name: 'Trial Started', time: at, properties: { plan: 'pro' } }],
      }),
    ]);
  });

  it('track "Order Completed" with products: one purchase per product (Purchase object: product_id, currency, price, quantity, time)', () => {
    const products = [
      { product_id: 'p-1', name: 'Monitor', price: 19.99, quantity: 2, category: 'Gaming' },
      { sku: 'SKU-2', price: '199.99' },
    ];
    const message = { ...base, type: 'track', event: 'Order Completed', properties: { order_id: 'o-9', currency: 'eur', products } };
    expect(braze.transform!(message, config())).toEqual([
      expected('/users/track', {
        purchases: [
          {
            external_id: 'u-1',
            product_id: 'p-1',
            currency: 'EUR',
            price: 19.99,
            quantity: 2,
            time: at,
            properties: { name: 'Monitor', category: 'Gaming', order_id: 'o-9' },
          },
          { external_id: 'u-1', product_id: 'SKU-2', currency: 'EUR', price: 199.99, time: at, properties: { order_id: 'o-9' } },
        ],
      }),
    ]);
  });

  it('an event without userId is about the user alias {alias_name: anonymousId, alias_label: weir_anon_id}, created with _update_existing_only false (Event object)', () => {
    const message = { type: 'track', event: 'Viewed Pricing', anonymousId: 'a-9', timestamp: at };
    expect(braze.transform!(message, config())).toEqual([
      expected(
        '/users/track',
        {
          events: [
            {
              user_alias: { alias_name: 'a-9', alias_label: 'weir_anon_id' },
              _update_existing_only: false,
              name: 'Viewed Pricing',
              time: at,
              properties: {},
            },
          ],
        },
        'a-9',
      ),
    ]);
  });

  it('page and screen: custom events "Viewed <name> Page|Screen" keeping the name as a property (Event object)', () => {
    expect(braze.transform!({ ...base, type: 'page', name: 'Pricing', properties: { url: 'https://x.io/pricing' } }, config())).toEqual([
      expected('/users/track', {
        events: [{ external_id: 'u-1', name: 'Viewed Pricing Page', time: at, properties: { url: 'https://x.io/pricing', name: 'Pricing' } }],
      }),
    ]);
    expect(braze.transform!({ ...base, type: 'screen', name: 'Home' }, config())).toEqual([
      expected('/users/track', { events: [{ external_id: 'u-1', name: 'Viewed Home Screen', time: at, properties: { name: 'Home' } }] }),
    ]);
  });

  it('group: the groupId is added to the array custom attribute group_ids (User attributes object, arrays "add")', () => {
    expect(braze.transform!({ ...base, type: 'group', groupId: 42 }, config())).toEqual([
      expected('/users/track', { attributes: [{ external_id: 'u-1', group_ids: { add: ['42'] } }] }),
    ]);
  });

  it('alias: the previous user is merged into the new one (POST: Merge users): by external_id, or by the anonymous alias when previousId is the anonymousId', () => {
    expect(braze.transform!({ type: 'alias', userId: 'u-new', previousId: 'u-old', anonymousId: 'a-1' }, config())).toEqual([
      expected('/users/merge', {
        merge_updates: [{ identifier_to_merge: { external_id: 'u-old' }, identifier_to_keep: { external_id: 'u-new' } }],
      }),
    ]);
    expect(braze.transform!({ type: 'alias', userId: 'u-new', previousId: 'a-1', anonymousId: 'a-1' }, config())).toEqual([
      expected('/users/merge', {
        merge_updates: [
          { identifier_to_merge: { user_alias: { alias_name: 'a-1', alias_label: 'weir_anon_id' } }, identifier_to_keep: { external_id: 'u-new' } },
        ],
      }),
    ]);
  });

  it('identify of a user without an anonymousId (or the same id twice) updates attributes only; identifies batch 50 aliases a request (POST: Identify users)', () => {
    const [only, ...more] = braze.transform!({ type: 'identify', userId: 'u-1', traits: { plan: 'pro' } }, config());
    expect([only!.endpoint, more]).toEqual(['https://rest.iad-03.braze.com/users/track', []]);
    const maxEvents = braze.batch!.maxEvents as (request: { endpoint: string }) => number;
    expect([maxEvents({ endpoint: 'https://x/users/identify' }), maxEvents({ endpoint: 'https://x/users/track' })]).toEqual([50, 75]);
  });

  it('sends to the instance REST endpoint of the data center, or to restEndpoint (API and SDK endpoints table)', () => {
    const endpoint = (extra: Record<string, unknown>) =>
      braze.transform!({ ...base, type: 'track', event: 'x' }, braze.config.parse({ restApiKey: 'KEY', ...extra }))[0]!.endpoint;
    expect(endpoint({ dataCenter: 'US-01' })).toBe('https://rest.iad-01.braze.com/users/track');
    expect(endpoint({ dataCenter: 'US-08' })).toBe('https://rest.iad-08.braze.com/users/track');
    expect(endpoint({ dataCenter: 'US-10' })).toBe('https://rest.us-10.braze.com/users/track');
    expect(endpoint({ dataCenter: 'EU-01' })).toBe('https://rest.fra-01.braze.eu/users/track');
    expect(endpoint({ dataCenter: 'EU-02' })).toBe('https://rest.fra-02.braze.eu/users/track');
    expect(endpoint({ dataCenter: 'EU-01', restEndpoint: 'http://proxy.local:8080/braze/' })).toBe('http://proxy.local:8080/braze/users/track');
  });

  it('validates the configuration: REST API key, a data center or endpoint, http(s) URLs, no unknown keys', () => {
    expect(braze.config.safeParse({ restApiKey: 'k', dataCenter: 'US-01' }).success).toBe(true);
    expect(braze.config.safeParse({ restApiKey: 'k' }).error?.issues[0]?.message).toBe('dataCenter or restEndpoint is required');
    expect(braze.config.safeParse({ restApiKey: 'k', restEndpoint: 'ftp://x' }).success).toBe(false);
    expect(braze.config.safeParse({ restApiKey: 'k', dataCenter: 'MARS-01' }).success).toBe(false);
    expect(braze.config.safeParse({ dataCenter: 'US-01' }).success).toBe(false);
    expect(braze.config.safeParse({ restApiKey: 'k', dataCenter: 'US-01', extra: 1 }).success).toBe(false);
  });

  it('refuses what Braze cannot take, naming why', () => {
    const cfg = config();
    expectRefusals(braze, cfg, [
      [{ type: 'track', event: 'x' }, 'Braze needs a userId (external_id) or an anonymousId (user alias) on the track event'],
      [{ type: 'track', userId: 'u' }, 'a track event needs an event name'],
      [{ type: 'group', userId: 'u' }, 'a group event needs a groupId'],
      [{ type: 'alias', userId: 'u' }, 'a Braze alias needs a userId and a previousId (users merged by external_id)'],
    ]);
    const order = { type: 'track', userId: 'u', event: 'Order Completed', properties: { products: [{ product_id: 'p' }] } };
    expect(buildRequests(braze, order, cfg)).toEqual({
      ok: false,
      error: 'Order Completed product 0 needs a product_id (or sku or name) and a numeric price for a Braze purchase',
    });
  });
});

describe('Braze user deletion (POST: Delete users)', () => {
  const { vendor, io } = deletionVendor();
  const users = (n: number) => Array.from({ length: n }, (_, i) => ({ userId: `u-${i + 1}` }));
  const cfg = () => config({ restEndpoint: vendor.url });

  it('posts external_ids with the bearer key, at most 50 a request, and completes when all are answered 2xx', async () => {
    vendor.on('/', json(201, { deleted: 50, message: 'success' }));
    expect(await braze.deleteUsers!(users(120), cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.headers['content-type']])).toEqual([
      ['POST', '/users/delete', 'Bearer KEY', 'application/json'],
      ['POST', '/users/delete', 'Bearer KEY', 'application/json'],
      ['POST', '/users/delete', 'Bearer KEY', 'application/json'],
    ]);
    const ids = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => `u-${from + i}`);
    expect(vendor.received.map((r) => r.json)).toEqual([{ external_ids: ids(1, 50) }, { external_ids: ids(51, 100) }, { external_ids: ids(101, 120) }]);
  });

  it('maps the answers: 200 completed, 404 not found, 500 retryable, 400 final with what Braze said', async () => {
    const cases: [number, unknown][] = [
      [200, { status: 'completed' }],
      [404, { status: 'not_found', reason: 'Braze answered 404: {"message":"x"}' }],
      [500, { status: 'failed', retryable: true, error: 'Braze answered 500: {"message":"x"}' }],
      [400, { status: 'failed', retryable: false, error: 'Braze answered 400: {"message":"x"}' }],
    ];
    for (const [status, outcome] of cases) {
      vendor.on('/', json(status, { message: 'x' }));
      expect(await braze.deleteUsers!(users(2), cfg(), io)).toEqual(outcome);
    }
  });

  it('stops at the first batch that fails, so a retry starts over (deletion is idempotent)', async () => {
    vendor.on('/', json(429, { message: 'rate limited' }));
    expect(await braze.deleteUsers!(users(60), cfg(), io)).toEqual({
      status: 'failed',
      retryable: true,
      error: 'Braze answered 429: {"message":"rate limited"}',
    });
    expect(vendor.received).toHaveLength(1);
  });
});
