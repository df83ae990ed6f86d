import { buildRequests } from '../../shared/destinations';
import { customerio } from '../../shared/destinations/customerio';
import { sendRequest } from '../../shared/destinations/http-client';
import { json, startDestinationServer, type DestinationServer } from '../support/destination-server';

/**
 * Customer.io, from the Track API reference (docs.customer.io/integrations/api/track): "Add or update a customer",
 * "Track a customer event", "Track an anonymous event", "Merge customers", "Delete a customer", Track v2 "Object:
 * Identify", and the "Overview" on regions. Expected requests are written out from those pages.
 */
const config = (extra: Record<string, unknown> = {}) => customerio.config.parse({ siteID: 'SITE', apiKey: 'KEY', ...extra });
// Basic authentication: base64 of "SITE:KEY".
const AUTH = 'Basic U0lURTpLRVk=';
const at = '2026-11-23T10:00:00.000Z';
const AT_SECONDS = 1795428000;
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

const expected = (method: string, endpoint: string, body?: Record<string, unknown>, userId: string | undefined = 'a-1') => ({
  version: '1',
  type: 'REST',
  method,
  endpoint,
  headers: { ...(body && { 'Content-Type': 'application/json' }), Authorization: AUTH },
  params: {},
  body: { JSON: body ?? {}, JSON_ARRAY: {}, XML: {}, FORM: {} },
  files: {},
  ...(userId && { userId }),
});

describe('Customer.io transform (Track API)', () => {
  it('identify: PUT /api/v1/customers/{id} with the traits as attributes, created_at in unix seconds, anonymous_id (Add or update a customer)', () => {
    const traits = { email: 'ada@example.com', first_name: 'Ada', plan: 'basic', createdAt: '2024-01-15T08:30:00Z' };
    expect(customerio.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      expected('PUT', 'https://track.customer.io/api/v1/customers/u-1', {
        email: 'ada@example.com',
        first_name: 'Ada',
        plan: 'basic',
        created_at: 1705307400,
        anonymous_id: 'a-1',
      }),
    ]);
  });

  it('track: POST /api/v1/customers/{id}/events with name, data and a unix timestamp (Track a customer event)', () => {
    const message = { ...base, type: 'track', event: 'purchase', properties: { price: 23.45, product: 'socks' } };
    expect(customerio.transform!(message, config())).toEqual([
      expected('POST', 'https://track.customer.io/api/v1/customers/u-1/events', {
        name: 'purchase',
        data: { price: 23.45, product: 'socks' },
        timestamp: AT_SECONDS,
      }),
    ]);
  });

  it('an anonymous track goes to POST /api/v1/events with anonymous_id (Track an anonymous event)', () => {
    const message = { type: 'track', event: 'watched_video', anonymousId: 'abc123', timestamp: at, properties: { video: 'intro' } };
    expect(customerio.transform!(message, config())).toEqual([
      expected(
        'POST',
        'https://track.customer.io/api/v1/events',
        { name: 'watched_video', data: { video: 'intro' }, timestamp: AT_SECONDS, anonymous_id: 'abc123' },
        'abc123',
      ),
    ]);
  });

  it('page: an event of type page named by the URL viewed (Track a customer event, "Page view")', () => {
    const message = { ...base, type: 'page', name: 'Pricing', properties: { url: 'https://mysite.com/pricing', title: 'Pricing' } };
    expect(customerio.transform!(message, config())).toEqual([
      expected('POST', 'https://track.customer.io/api/v1/customers/u-1/events', {
        name: 'https://mysite.com/pricing',
        type: 'page',
        data: { url: 'https://mysite.com/pricing', title: 'Pricing' },
        timestamp: AT_SECONDS,
      }),
    ]);
    const fromContext = { type: 'page', anonymousId: 'a-2', context: { page: { url: 'https://mysite.com/' } } };
    expect(customerio.transform!(fromContext, config())).toEqual([
      expected('POST', 'https://track.customer.io/api/v1/events', { name: 'https://mysite.com/', type: 'page', data: {}, anonymous_id: 'a-2' }, 'a-2'),
    ]);
  });

  it('screen: an event of type screen named by the screen (Track a customer event, "Mobile screen view")', () => {
    expect(customerio.transform!({ ...base, type: 'screen', name: 'homepage', properties: { from: 'push-notification' } }, config())).toEqual([
      expected('POST', 'https://track.customer.io/api/v1/customers/u-1/events', {
        name: 'homepage',
        type: 'screen',
        data: { from: 'push-notification' },
        timestamp: AT_SECONDS,
      }),
    ]);
  });

  it('group: an object identified through /api/v2/entity and related to the person (Track v2, Object: Identify)', () => {
    const message = { ...base, type: 'group', groupId: 'acme', traits: { name: 'Acme Corp', plan: 'enterprise', objectTypeId: 2 } };
    expect(customerio.transform!(message, config())).toEqual([
      expected('POST', 'https://track.customer.io/api/v2/entity', {
        type: 'object',
        identifiers: { object_type_id: '2', object_id: 'acme' },
        action: 'identify',
        attributes: { name: 'Acme Corp', plan: 'enterprise' },
        cio_relationships: [{ identifiers: { id: 'u-1' } }],
      }),
    ]);
  });

  it('an anonymous group relates the object by anonymous_id, object type "1" by default (Track v2, Object: Identify anonymous)', () => {
    expect(customerio.transform!({ type: 'group', groupId: 7, anonymousId: 'a-3' }, config())).toEqual([
      expected(
        'POST',
        'https://track.customer.io/api/v2/entity',
        {
          type: 'object',
          identifiers: { object_type_id: '1', object_id: '7' },
          action: 'identify_anonymous',
          attributes: {},
          cio_relationships: [{ identifiers: { anonymous_id: 'a-3' } }],
        },
        'a-3',
      ),
    ]);
  });

  it('alias: the previous person (secondary) is merged into the userId (primary) (Merge customers)', () => {
    expect(customerio.transform!({ type: 'alias', userId: 'u-new', previousId: 'u-old', anonymousId: 'a-1' }, config())).toEqual([
      expected('POST', 'https://track.customer.io/api/v1/merge_customers', { primary: { id: 'u-new' }, secondary: { id: 'u-old' } }),
    ]);
  });

  it('uses track-eu for the EU region, the baseUrl where given, and escapes the id in the path (Overview, regions)', () => {
    const endpoint = (extra: Record<string, unknown>, userId = 'u-1') =>
      customerio.transform!({ ...base, userId, type: 'track', event: 'x' }, config(extra))[0]!.endpoint;
    expect(endpoint({ datacenter: 'US' })).toBe('https://track.customer.io/api/v1/customers/u-1/events');
    expect(endpoint({ datacenter: 'EU' })).toBe('https://track-eu.customer.io/api/v1/customers/u-1/events');
    expect(endpoint({ datacenter: 'EU', baseUrl: 'http://proxy.local:9000/cio/' })).toBe('http://proxy.local:9000/cio/api/v1/customers/u-1/events');
    expect(endpoint({}, 'ada@example.com/x')).toBe('https://track.customer.io/api/v1/customers/ada%40example.com%2Fx/events');
  });

  it('validates the configuration: siteID and apiKey required, US or EU, an http(s) baseUrl, no unknown keys', () => {
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k' }).success).toBe(true);
    expect(customerio.config.safeParse({ apiKey: 'k' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k', datacenter: 'APAC' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k', baseUrl: 'file:///etc' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k', region: 'EU' }).success).toBe(false);
  });

  it('refuses what the Track API cannot take, naming why', () => {
    const cfg = config();
    expect(buildRequests(customerio, { type: 'identify', anonymousId: 'a', traits: { email: 'x@y.z' } }, cfg)).toEqual({
      ok: false,
      error: 'Customer.io needs a userId to identify a person (the customer id in the path)',
    });
    expect(buildRequests(customerio, { type: 'track', event: 'x' }, cfg)).toEqual({
      ok: false,
      error: 'Customer.io needs a userId or an anonymousId on the track event',
    });
    expect(buildRequests(customerio, { type: 'track', userId: 'u' }, cfg)).toEqual({
      ok: false,
      error: 'a track event needs a name for Customer.io',
    });
    expect(buildRequests(customerio, { type: 'group', userId: 'u' }, cfg)).toEqual({ ok: false, error: 'a group event needs a groupId' });
    expect(buildRequests(customerio, { type: 'alias', userId: 'u' }, cfg)).toEqual({
      ok: false,
      error: 'a Customer.io alias needs a userId and a previousId (the people to merge)',
    });
  });
});

describe('Customer.io user deletion (Delete a customer)', () => {
  let vendor: DestinationServer;
  beforeAll(async () => (vendor = await startDestinationServer()));
  afterAll(async () => vendor.close());
  beforeEach(() => (vendor.received.length = 0));
  const io = { send: (r: Parameters<typeof sendRequest>[0]) => sendRequest(r, { allowlist: '127.0.0.1' }) };
  const cfg = () => config({ baseUrl: vendor.url });
  const users = [{ userId: 'u-1' }, { userId: 'u 2', email: 'b@x.io' }, { userId: 'u-3' }];

  it('sends one DELETE per person with Basic site id:api key and completes when all are answered 2xx', async () => {
    vendor.on('/', json(200, {}));
    expect(await customerio.deleteUsers!(users, cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.body])).toEqual([
      ['DELETE', '/api/v1/customers/u-1', AUTH, ''],
      ['DELETE', '/api/v1/customers/u%202', AUTH, ''],
      ['DELETE', '/api/v1/customers/u-3', AUTH, ''],
    ]);
  });

  it('counts a 404 as already deleted', async () => {
    vendor.on('/', json(404, { meta: { error: 'not found' } }));
    expect(await customerio.deleteUsers!(users, cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received).toHaveLength(3);
  });

  it('fails retryably on a 500, and finally on a 400 with what Customer.io said', async () => {
    vendor.on('/', json(500, { meta: { error: 'boom' } }));
    expect(await customerio.deleteUsers!(users.slice(0, 1), cfg(), io)).toEqual({
      status: 'failed',
      retryable: true,
      error: 'Customer.io answered 500: {"meta":{"error":"boom"}}',
    });
    vendor.on('/', json(400, { meta: { errors: ['bad id'] } }));
    expect(await customerio.deleteUsers!(users.slice(0, 1), cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'Customer.io answered 400: {"meta":{"errors":["bad id"]}}',
    });
  });

  it('tries every person, and reports a retryable failure before a final one (all can be sent again)', async () => {
    vendor.on('/api/v1/customers/u-1', json(400, { meta: { errors: ['bad id'] } }));
    vendor.on('/api/v1/customers/u%202', json(404, {}));
    vendor.on('/api/v1/customers/u-3', json(503, { meta: { error: 'busy' } }));
    expect(await customerio.deleteUsers!(users, cfg(), io)).toEqual({
      status: 'failed',
      retryable: true,
      error: 'Customer.io answered 503: {"meta":{"error":"busy"}}',
    });
    expect(vendor.received.map((r) => r.path)).toEqual(['/api/v1/customers/u-1', '/api/v1/customers/u%202', '/api/v1/customers/u-3']);
  });
});
