import { combine } from '../../../shared/destinations/batching';
import { heap } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Heap, from its server-side API reference (developers.heap.io/reference): "Track" (body params, limits, the EU
 * endpoint, array properties), "Bulk Track", "Add User Properties", "Bulk Add User Properties", "Add Account
 * Properties", "Bulk Add Account Properties" and "User Deletion" (auth_token, user_deletion). Expected requests
 * are written out from those pages.
 */
const config = (extra: Record<string, unknown> = {}) => heap.config.parse({ appId: '12343283', ...extra });
const at = '2016-05-10T22:21:56.000Z';
const base = { messageId: 'm-1', userId: 'alice@example.com', anonymousId: 'a-1', timestamp: at };

const expected = (path: string, body: Record<string, unknown>, userId = 'a-1', host = 'https://heapanalytics.com') =>
  jsonPost(`${host}${path}`, { 'Content-Type': 'application/json' }, body, userId);

describe('Heap transform (server-side APIs, bulk forms)', () => {
  it('track: one event of a Bulk Track with identity, event, timestamp, properties and idempotency_key = messageId', () => {
    const properties = { 'Sales Rep': 'Joe Smith', Duration: '15 minutes', flavors: ['vanilla', 'chocolate'], minutes: 15 };
    expect(heap.transform!({ ...base, type: 'track', event: 'Phone Call', properties }, config())).toEqual([
      expected('/api/track', {
        app_id: '12343283',
        events: [{ identity: 'alice@example.com', event: 'Phone Call', timestamp: at, properties, idempotency_key: 'm-1' }],
      }),
    ]);
  });

  it('properties as Heap takes them: nested objects as dotted keys, booleans as text, values under 1,024 characters', () => {
    const properties = { plan: { name: 'pro', seats: 3 }, trial: true, note: 'x'.repeat(2000), gone: null, list: [1, 'a', { no: 1 }] };
    const [event] = heap.transform!({ ...base, type: 'track', event: 'E', properties }, config())[0]!.body.JSON.events as { properties: unknown }[];
    expect(event!.properties).toEqual({ 'plan.name': 'pro', 'plan.seats': 3, trial: 'true', note: 'x'.repeat(1023), list: [1, 'a'] });
  });

  it('identify: one user of a Bulk Add User Properties; arrays joined by "||", keys named id left out, email lowercase as sent', () => {
    const traits = { email: 'alice@example.com', Role: 'Admin', tags: ['a', 'b'], address: { city: 'Paris' }, ID: 7 };
    expect(heap.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      expected('/api/add_user_properties', {
        app_id: '12343283',
        users: [{ identity: 'alice@example.com', properties: { email: 'alice@example.com', Role: 'Admin', tags: 'a||b', 'address.city': 'Paris' } }],
      }),
    ]);
  });

  it('page and screen: events "Viewed <name> Page|Screen" keeping the name as a property', () => {
    expect(heap.transform!({ ...base, type: 'page', name: 'Pricing', properties: { path: '/pricing' } }, config())).toEqual([
      expected('/api/track', {
        app_id: '12343283',
        events: [
          {
            identity: 'alice@example.com',
            event: 'Viewed Pricing Page',
            timestamp: at,
            properties: { path: '/pricing', name: 'Pricing' },
            idempotency_key: 'm-1',
          },
        ],
      }),
    ]);
    expect(heap.transform!({ type: 'screen', userId: 'u-2' }, config())).toEqual([
      expected('/api/track', { app_id: '12343283', events: [{ identity: 'u-2', event: 'Viewed Screen', properties: {} }] }, ''),
    ]);
  });

  it('group: one account of a Bulk Add Account Properties, account_id = groupId', () => {
    const traits = { is_in_good_standing: 'true', revenue_potential: 123456, account_hq: 'United Kingdom' };
    expect(heap.transform!({ ...base, type: 'group', groupId: 'Fake Account', traits }, config())).toEqual([
      expected('/api/add_account_properties', { app_id: '12343283', accounts: [{ account_id: 'Fake Account', properties: traits }] }),
    ]);
  });

  it('sends to heapanalytics.com, to c.eu.heap-api.com for the EU data center, or to baseUrl (Track)', () => {
    const endpoint = (extra: Record<string, unknown>) => heap.transform!({ ...base, type: 'track', event: 'x' }, config(extra))[0]!.endpoint;
    expect(endpoint({})).toBe('https://heapanalytics.com/api/track');
    expect(endpoint({ dataCenter: 'EU' })).toBe('https://c.eu.heap-api.com/api/track');
    expect(endpoint({ dataCenter: 'EU', baseUrl: 'http://proxy.local:9000/heap/' })).toBe('http://proxy.local:9000/heap/api/track');
  });

  it('batches up to 1,000 events, users or accounts a request (the bulk forms); requests of one endpoint combine', () => {
    expect(heap.batch).toEqual({ maxEvents: 1000, maxBytes: 1_000_000, lists: ['JSON.events', 'JSON.users', 'JSON.accounts'] });
    const requests = ['e1', 'e2'].map((event, i) => heap.transform!({ ...base, messageId: `m-${i}`, type: 'track', event }, config())[0]!);
    expect(combine(heap.batch!, requests).body.JSON).toEqual({
      app_id: '12343283',
      events: [
        { identity: 'alice@example.com', event: 'e1', timestamp: at, properties: {}, idempotency_key: 'm-0' },
        { identity: 'alice@example.com', event: 'e2', timestamp: at, properties: {}, idempotency_key: 'm-1' },
      ],
    });
  });

  it('validates the configuration: appId required, US or EU, an http(s) baseUrl, no unknown keys', () => {
    expect(heap.config.safeParse({ appId: '1', apiKey: 'k', dataCenter: 'EU' }).success).toBe(true);
    expect(heap.config.safeParse({}).success).toBe(false);
    expect(heap.config.safeParse({ appId: '1', dataCenter: 'APAC' }).success).toBe(false);
    expect(heap.config.safeParse({ appId: '1', baseUrl: 'file:///x' }).success).toBe(false);
    expect(heap.config.safeParse({ appId: '1', envId: '2' }).success).toBe(false);
  });

  it('refuses what Heap cannot take, naming why (identity required and at most 255 characters, event names at most 1024)', () => {
    const cfg = config();
    expectRefusals(heap, cfg, [
      [{ type: 'track', event: 'x', anonymousId: 'a' }, 'Heap needs a userId (its identity) on the track event'],
      [{ type: 'track', userId: 'u' }, 'a track event needs an event name'],
      [{ type: 'group', userId: 'u' }, 'a group event needs a groupId'],
      [{ type: 'alias', userId: 'u', previousId: 'p' }, 'message type alias is not supported by Heap (it has no server-side alias)'],
      [{ type: 'track', userId: 'u'.repeat(256), event: 'x' }, 'the userId is 256 characters; Heap takes an identity of at most 255'],
      [{ type: 'track', userId: 'u', event: 'e'.repeat(1025) }, 'the event name is 1025 characters; Heap takes at most 1024'],
    ]);
  });
});

describe('Heap user deletion (User Deletion API)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = (extra: Record<string, unknown> = { apiKey: 'SECRET' }) => config({ baseUrl: vendor.url, ...extra });
  // Basic app_id:api_key.
  const BASIC = `Basic ${Buffer.from('12343283:SECRET').toString('base64')}`;

  it('gets an access_token with Basic app_id:api_key, then submits the identities with it as bearer', async () => {
    vendor.on('/api/public/v0/auth_token', json(200, { access_token: 'TOKEN-1' }));
    vendor.on('/api/public/v0/user_deletion', json(200, { deletion_request_id: 'req-789' }));
    expect(await heap.deleteUsers!([{ userId: 'alice@example.com' }, { userId: 'u-2', email: 'b@x.io' }], cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.json])).toEqual([
      ['POST', '/api/public/v0/auth_token', BASIC, undefined],
      ['POST', '/api/public/v0/user_deletion', 'Bearer TOKEN-1', { users: [{ identity: 'alice@example.com' }, { identity: 'u-2' }] }],
    ]);
  });

  it('sends 10,000 users a request', async () => {
    vendor.on('/api/public/v0/auth_token', json(200, { access_token: 'T' }));
    vendor.on('/api/public/v0/user_deletion', json(200, { deletion_request_id: 'r' }));
    const users = Array.from({ length: 10_001 }, (_, i) => ({ userId: `u-${i}` }));
    expect(await heap.deleteUsers!(users, cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.filter((r) => r.path.endsWith('/user_deletion')).map((r) => (r.json as { users: unknown[] }).users.length)).toEqual([10_000, 1]);
  });

  it('fails finally when the credentials are refused, without submitting anything', async () => {
    vendor.on('/api/public/v0/auth_token', json(401, { err: 'Unauthorized' }));
    expect(await heap.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'Heap answered 401: {"err":"Unauthorized"}',
    });
    expect(vendor.received.map((r) => r.path)).toEqual(['/api/public/v0/auth_token']);
  });

  it('fails retryably on a 5xx of the deletion; without an apiKey deletion is unsupported and nothing is sent', async () => {
    vendor.on('/api/public/v0/auth_token', json(200, { access_token: 'T' }));
    vendor.on('/api/public/v0/user_deletion', json(503, { err: 'busy' }));
    expect(await heap.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({ status: 'failed', retryable: true, error: 'Heap answered 503: {"err":"busy"}' });
    vendor.received.length = 0;
    expect(await heap.deleteUsers!([{ userId: 'u-1' }], cfg({}), io)).toEqual({
      status: 'unsupported',
      reason: 'Heap deletes users through its User Deletion API: set apiKey',
    });
    expect(vendor.received).toEqual([]);
  });
});
