import { buildRequests } from '../../../shared/destinations';
import { customerio } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Customer.io, from the Track API reference (docs.customer.io/integrations/api/track): "v1 vs v2 APIs", "v2 API
 * Limits", Track v2 "Send multiple requests" (POST /api/v2/batch, its 207 answer) and its entity payloads "Person:
 * Identify", "Person: Event", "Person: Page view", "Person: Screen view", "Person: Merge", "Object: Identify",
 * "Object: Identify anonymous"; "Delete a customer", and the "Overview" on regions. Expected requests are written
 * out from those pages.
 */
const config = (extra: Record<string, unknown> = {}) => customerio.config.parse({ siteID: 'SITE', apiKey: 'KEY', ...extra });
// Basic authentication: base64 of "SITE:KEY".
const AUTH = 'Basic U0lURTpLRVk=';
const at = '2026-11-23T10:00:00.000Z';
const AT_SECONDS = 1795428000;
// The ULID of messageId m-1 at `at`: its first 10 characters are the event's time in milliseconds.
const M1_ULID = '01M83XJ880PW52N2WAYJXT5NJN';
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

/** A batch of one entity, as every message is sent ("Send multiple requests"). */
const batchOf = (entity: Record<string, unknown>, userId: string | undefined = 'a-1', host = 'https://track.customer.io') =>
  jsonPost(`${host}/api/v2/batch`, { 'Content-Type': 'application/json', Authorization: AUTH }, { batch: [entity] }, userId);

const entityOf = (message: Record<string, unknown>) => (customerio.transform!(message, config())[0]!.body.JSON.batch as unknown[])[0];

describe('Customer.io transform (Track API v2)', () => {
  it('identify: a person identified by id, traits as attributes, created_at in unix seconds, anonymous_id, timestamp (Person: Identify)', () => {
    const traits = { email: 'ada@example.com', first_name: 'Ada', plan: 'basic', createdAt: '2024-01-15T08:30:00Z' };
    expect(customerio.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      batchOf({
        type: 'person',
        identifiers: { id: 'u-1' },
        action: 'identify',
        attributes: { email: 'ada@example.com', first_name: 'Ada', plan: 'basic', created_at: 1705307400, anonymous_id: 'a-1' },
        timestamp: AT_SECONDS,
      }),
    ]);
  });

  it('track: a person event with name, a ULID id, a unix timestamp and the properties as attributes (Person: Event)', () => {
    const message = { ...base, type: 'track', event: 'purchase', properties: { price: 23.45, product: 'socks' } };
    expect(customerio.transform!(message, config())).toEqual([
      batchOf({
        type: 'person',
        identifiers: { id: 'u-1' },
        action: 'event',
        id: M1_ULID,
        name: 'purchase',
        timestamp: AT_SECONDS,
        attributes: { price: 23.45, product: 'socks' },
      }),
    ]);
  });

  it('an anonymous track names the person by anonymous_id (Person: Event; Track an anonymous event)', () => {
    const message = { type: 'track', event: 'watched_video', anonymousId: 'abc123', messageId: 'm-1', timestamp: at, properties: { video: 'intro' } };
    expect(customerio.transform!(message, config())).toEqual([
      batchOf(
        {
          type: 'person',
          identifiers: { anonymous_id: 'abc123' },
          action: 'event',
          id: M1_ULID,
          name: 'watched_video',
          timestamp: AT_SECONDS,
          attributes: { video: 'intro' },
        },
        'abc123',
      ),
    ]);
  });

  it('the event id is a ULID made from the event: the same every time, its time part the event time (Person: Event, id)', () => {
    const id = (message: Record<string, unknown>) => (entityOf({ ...base, type: 'track', event: 'x', ...message }) as { id?: string }).id;
    expect(id({})).toBe(M1_ULID);
    expect(id({})).toMatch(/^[0-7][0-9A-HJKMNP-TV-Z]{25}$/);
    // Crockford base 32 of the milliseconds: 01ARYZ6S41 is 1469918176385, the ULID spec's example.
    expect(id({ timestamp: new Date(1469918176385).toISOString() })!.slice(0, 10)).toBe('01ARYZ6S41');
    expect(id({ messageId: 'm-2' })).toBe('01M83XJ8803YT9WQW5SVBXK4DF');
    expect(id({ messageId: 'm-2' })!.slice(0, 10)).toBe(M1_ULID.slice(0, 10));
    expect(id({ messageId: undefined })).toBeUndefined();
  });

  it('page: a page view named by the URL viewed (Person: Page view)', () => {
    const message = { ...base, type: 'page', name: 'Pricing', properties: { url: 'https://mysite.com/pricing', title: 'Pricing' } };
    expect(customerio.transform!(message, config())).toEqual([
      batchOf({
        type: 'person',
        identifiers: { id: 'u-1' },
        action: 'page',
        id: M1_ULID,
        name: 'https://mysite.com/pricing',
        timestamp: AT_SECONDS,
        attributes: { url: 'https://mysite.com/pricing', title: 'Pricing' },
      }),
    ]);
    const fromContext = { type: 'page', anonymousId: 'a-2', context: { page: { url: 'https://mysite.com/' } } };
    expect(customerio.transform!(fromContext, config())).toEqual([
      batchOf({ type: 'person', identifiers: { anonymous_id: 'a-2' }, action: 'page', name: 'https://mysite.com/', attributes: {} }, 'a-2'),
    ]);
  });

  it('screen: a screen view named by the screen (Person: Screen view)', () => {
    expect(customerio.transform!({ ...base, type: 'screen', name: 'homepage', properties: { from: 'push-notification' } }, config())).toEqual([
      batchOf({
        type: 'person',
        identifiers: { id: 'u-1' },
        action: 'screen',
        id: M1_ULID,
        name: 'homepage',
        timestamp: AT_SECONDS,
        attributes: { from: 'push-notification' },
      }),
    ]);
  });

  it('group: an object identified and related to the person (Object: Identify)', () => {
    const message = { ...base, type: 'group', groupId: 'acme', traits: { name: 'Acme Corp', plan: 'enterprise', objectTypeId: 2 } };
    expect(customerio.transform!(message, config())).toEqual([
      batchOf({
        type: 'object',
        identifiers: { object_type_id: '2', object_id: 'acme' },
        action: 'identify',
        attributes: { name: 'Acme Corp', plan: 'enterprise' },
        cio_relationships: [{ identifiers: { id: 'u-1' } }],
      }),
    ]);
  });

  it('an anonymous group relates the object by anonymous_id, object type "1" by default (Object: Identify anonymous)', () => {
    expect(customerio.transform!({ type: 'group', groupId: 7, anonymousId: 'a-3' }, config())).toEqual([
      batchOf(
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

  it('alias: the previous person (secondary) is merged into the userId (primary) (Person: Merge)', () => {
    expect(customerio.transform!({ type: 'alias', userId: 'u-new', previousId: 'u-old', anonymousId: 'a-1' }, config())).toEqual([
      batchOf({ type: 'person', action: 'merge', primary: { id: 'u-new' }, secondary: { id: 'u-old' } }),
    ]);
  });

  it('uses track-eu for the EU region and the baseUrl where given (Overview, regions)', () => {
    const endpoint = (extra: Record<string, unknown>) => customerio.transform!({ ...base, type: 'track', event: 'x' }, config(extra))[0]!.endpoint;
    expect(endpoint({ datacenter: 'US' })).toBe('https://track.customer.io/api/v2/batch');
    expect(endpoint({ datacenter: 'EU' })).toBe('https://track-eu.customer.io/api/v2/batch');
    expect(endpoint({ datacenter: 'EU', baseUrl: 'http://proxy.local:9000/cio/' })).toBe('http://proxy.local:9000/cio/api/v2/batch');
  });

  it('batches: every message is a batch of one under `batch`, up to 480 kB of entities per request (v2 API Limits)', () => {
    expect(customerio.batch).toMatchObject({ maxEvents: 1000, maxBytes: 480_000, lists: ['JSON.batch'] });
  });

  it('reads a 207 answer per entity: those at errors[].batch_index are refused, the others delivered (Send multiple requests)', () => {
    const errors = [
      { batch_index: 1, reason: 'required', field: 'name', message: 'name is required' },
      { batch_index: 1, reason: 'invalid', message: 'bad timestamp' },
      { batch_index: 7, reason: 'out of range' },
    ];
    expect(customerio.batch!.verdicts!({ status: 207, response: { errors } }, 3)).toEqual([
      { kind: 'delivered' },
      { kind: 'refused', error: 'Customer.io refused the event: name: required name is required; invalid bad timestamp' },
      { kind: 'delivered' },
    ]);
    // Anything else is about the request as a whole.
    expect(customerio.batch!.verdicts!({ status: 200, response: {} }, 3)).toBeUndefined();
    expect(customerio.batch!.verdicts!({ status: 207, response: { errors: [] } }, 3)).toBeUndefined();
    expect(customerio.batch!.verdicts!({ status: 400, response: { errors: [{ reason: 'malformed' }] } }, 3)).toBeUndefined();
  });

  it('validates the configuration: siteID and apiKey required, US or EU, an http(s) baseUrl, no unknown keys', () => {
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k' }).success).toBe(true);
    expect(customerio.config.safeParse({ apiKey: 'k' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k', datacenter: 'APAC' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k', baseUrl: 'file:///etc' }).success).toBe(false);
    expect(customerio.config.safeParse({ siteID: 's', apiKey: 'k', region: 'EU' }).success).toBe(false);
  });

  it('refuses what the Track API cannot take, naming why (an entity over 32 kB: v2 API Limits)', () => {
    const cfg = config();
    expectRefusals(customerio, cfg, [
      [{ type: 'identify', anonymousId: 'a', traits: { email: 'x@y.z' } }, 'Customer.io needs a userId to identify a person (identifiers.id)'],
      [{ type: 'track', event: 'x' }, 'Customer.io needs a userId or an anonymousId on the track event'],
      [{ type: 'track', userId: 'u' }, 'a track event needs a name for Customer.io'],
      [{ type: 'group', userId: 'u' }, 'a group event needs a groupId'],
      [{ type: 'alias', userId: 'u' }, 'a Customer.io alias needs a userId and a previousId (the people to merge)'],
    ]);
    const big = buildRequests(customerio, { type: 'track', userId: 'u', event: 'x', properties: { text: 'é'.repeat(17_000) } }, cfg);
    expect(big).toEqual({
      ok: false,
      error: expect.stringMatching(/^the event is 340\d\d bytes as a Customer.io entity; the Track v2 API takes at most 32 kB$/),
    });
  });
});

describe('Customer.io user deletion (Delete a customer)', () => {
  const { vendor, io } = deletionVendor();
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
