import { setTimeout as sleep } from 'node:timers/promises';
import { intercom } from '../../support/destination-types';
import { metadataOf } from '../../../shared/destinations/intercom';
import { deliveryRig } from '../../support/delivery-rig';
import { json } from '../../support/destination-server';
import { vendorPipeline } from '../../support/vendor-pipeline';
import { oneShard } from '../../support/ingest-items';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Intercom, from its REST API reference, version 2.11 (developers.intercom.com/docs/references/2.11/rest-api):
 * "Create a contact" (POST /contacts; 409 "A contact matching those details already exists with id=..."),
 * "Update a contact" (PUT /contacts/{id}), "Submit a data event" (POST /events: event_name, created_at, user_id
 * or email, metadata; "Event Metadata Types"), "Create or update a company" (POST /companies), "Search contacts"
 * (POST /contacts/search) and "Delete a contact" (DELETE /contacts/{id}), "Regional hosting".
 * Expected requests are written out from those pages.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';

const config = (extra: Record<string, unknown> = {}) => intercom.config.parse({ accessToken: 'TOKEN', ...extra });
const headers = { Authorization: 'Bearer TOKEN', 'Intercom-Version': '2.11', Accept: 'application/json', 'Content-Type': 'application/json' };
const at = '2026-11-23T10:00:00.000Z';
const AT_SECONDS = 1795428000;
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

const expected = (path: string, body: Record<string, unknown>, userId: string | undefined = 'a-1', host = 'https://api.intercom.io') =>
  jsonPost(`${host}${path}`, headers, body, userId);

describe('Intercom transform (contacts, data events, companies)', () => {
  it('identify: a user contact by external_id and email, its fields, signed_up_at in unix seconds, flat traits as custom_attributes', () => {
    const traits = {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+441234567890',
      avatar: 'https://x.io/ada.png',
      createdAt: '2024-01-15T08:30:00Z',
      plan: 'pro',
      seats: 3,
      address: { city: 'London' },
    };
    expect(intercom.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      expected('/contacts', {
        role: 'user',
        external_id: 'u-1',
        email: 'ada@example.com',
        phone: '+441234567890',
        name: 'Ada Lovelace',
        avatar: 'https://x.io/ada.png',
        signed_up_at: 1705307400,
        custom_attributes: { plan: 'pro', seats: 3 },
      }),
    ]);
  });

  it('track: a data event with event_name, created_at in unix seconds, user_id and the properties as metadata', () => {
    const properties = { plan: 'pro', seats: 3, order_number: { value: '3434', url: 'https://x.io/o/3434' }, price: { amount: 2999, currency: 'usd' } };
    expect(intercom.transform!({ ...base, type: 'track', event: 'placed-order', properties }, config())).toEqual([
      expected('/events', { event_name: 'placed-order', created_at: AT_SECONDS, user_id: 'u-1', metadata: properties }),
    ]);
    const byEmail = { type: 'track', event: 'x', anonymousId: 'a-2', timestamp: at, context: { traits: { email: 'ada@example.com' } } };
    expect(intercom.transform!(byEmail, config())).toEqual([expected('/events', { event_name: 'x', created_at: AT_SECONDS, email: 'ada@example.com' }, 'a-2')]);
  });

  it("track: an order's revenue becomes the monetary amount price {amount in cents, currency}, first among the metadata", () => {
    const properties = { order_id: 'o-9', revenue: 29.99, currency: 'EUR', products: [{ sku: 'p-1' }] };
    expect(intercom.transform!({ ...base, type: 'track', event: 'Order Completed', properties }, config())[0]!.body.JSON).toEqual({
      event_name: 'Order Completed',
      created_at: AT_SECONDS,
      user_id: 'u-1',
      metadata: { price: { amount: 2999, currency: 'eur' }, order_id: 'o-9' },
    });
  });

  it('metadata: at most 10 keys, the first ones Intercom can take in the event order; nested JSON, "." and "$" keys left out; text cut at 255', () => {
    const properties = {
      nested: { a: { b: 1 } },
      list: [1, 2],
      'a.b': 1,
      $internal: 2,
      ...Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`k${i}`, i])),
      long: 'x'.repeat(300),
    };
    expect(metadataOf(properties)).toEqual(Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i])));
    expect(metadataOf({ long: 'x'.repeat(300) })).toEqual({ long: 'x'.repeat(255) });
  });

  it('group: a company by company_id, its fields, remote_created_at, the other flat traits as custom_attributes', () => {
    const traits = {
      name: 'Acme',
      plan: 'enterprise',
      employees: 120,
      website: 'https://acme.io',
      industry: 'Rockets',
      monthlySpend: 999.5,
      createdAt: at,
      tier: 2,
    };
    expect(intercom.transform!({ ...base, type: 'group', groupId: 'acme', traits }, config())).toEqual([
      expected('/companies', {
        company_id: 'acme',
        name: 'Acme',
        plan: 'enterprise',
        size: 120,
        website: 'https://acme.io',
        industry: 'Rockets',
        monthly_spend: 999.5,
        remote_created_at: AT_SECONDS,
        custom_attributes: { tier: 2 },
      }),
    ]);
  });

  it('sends to the regional host, or to baseUrl (Regional hosting)', () => {
    const endpoint = (extra: Record<string, unknown>) => intercom.transform!({ ...base, type: 'track', event: 'x' }, config(extra))[0]!.endpoint;
    expect(endpoint({})).toBe('https://api.intercom.io/events');
    expect(endpoint({ region: 'EU' })).toBe('https://api.eu.intercom.io/events');
    expect(endpoint({ region: 'AU' })).toBe('https://api.au.intercom.io/events');
    expect(endpoint({ region: 'EU', baseUrl: 'http://proxy.local:81/ic/' })).toBe('http://proxy.local:81/ic/events');
  });

  it('refuses what Intercom cannot take, naming why', () => {
    const cfg = config();
    expectRefusals(intercom, cfg, [
      [{ type: 'identify', anonymousId: 'a', traits: { name: 'Ada' } }, 'Intercom needs a userId (external_id) or traits.email to identify a contact'],
      [{ type: 'track', anonymousId: 'a', event: 'x' }, 'Intercom needs a userId (user_id) or context.traits.email on the track event'],
      [{ type: 'group', userId: 'u' }, 'a group event needs a groupId'],
      [
        { type: 'alias', userId: 'u', previousId: 'p' },
        'message type alias is not supported by Intercom (contacts come from identify, data events from track, companies from group)',
      ],
    ]);
  });

  it('validates the configuration: an access token, US, EU or AU, an http(s) baseUrl, no unknown keys; no batch API', () => {
    expect(intercom.config.safeParse({ accessToken: 't' }).success).toBe(true);
    expect(intercom.config.safeParse({}).success).toBe(false);
    expect(intercom.config.safeParse({ accessToken: 't', region: 'APAC' }).success).toBe(false);
    expect(intercom.config.safeParse({ accessToken: 't', baseUrl: 'ftp://x' }).success).toBe(false);
    expect(intercom.config.safeParse({ accessToken: 't', appId: 'x' }).success).toBe(false);
    expect(intercom.batch).toBeUndefined();
  });
});

describe('Intercom user deletion (Search contacts, Delete a contact)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = () => config({ baseUrl: vendor.url });

  it("finds each user's contacts by external_id and deletes them; a user with none is already deleted", async () => {
    vendor.on('/contacts/search', (req, res) => {
      const value = (req.json as { query: { value: string } }).query.value;
      json(200, {
        type: 'list',
        data:
          value === 'u-1'
            ? [
                { type: 'contact', id: 'c1' },
                { type: 'contact', id: 'c2' },
              ]
            : [],
        total_count: 0,
      })(req, res);
    });
    vendor.on('/contacts/c', json(200, { id: 'c1', object: 'contact', deleted: true }));
    expect(await intercom.deleteUsers!([{ userId: 'u-1' }, { userId: 'u-2' }], cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.headers['intercom-version'], r.json])).toEqual([
      ['POST', '/contacts/search', 'Bearer TOKEN', '2.11', { query: { field: 'external_id', operator: '=', value: 'u-1' } }],
      ['DELETE', '/contacts/c1', 'Bearer TOKEN', '2.11', undefined],
      ['DELETE', '/contacts/c2', 'Bearer TOKEN', '2.11', undefined],
      ['POST', '/contacts/search', 'Bearer TOKEN', '2.11', { query: { field: 'external_id', operator: '=', value: 'u-2' } }],
    ]);
  });

  it('fails retryably when the search is answered 5xx, finally on a 401', async () => {
    vendor.on('/contacts/search', json(503, { type: 'error.list', errors: [{ code: 'service_unavailable' }] }));
    expect(await intercom.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toMatchObject({ status: 'failed', retryable: true });
    vendor.on('/contacts/search', json(401, { type: 'error.list', errors: [{ code: 'unauthorized' }] }));
    expect(await intercom.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'Intercom answered 401: {"type":"error.list","errors":[{"code":"unauthorized"}]}',
    });
  });
});

describe('Intercom live delivery and test interface', () => {
  const rig = deliveryRig();
  const destination = (path: string) => ({ accessToken: 'TOKEN', baseUrl: `${rig.server.url}${path}` });
  const received = (path: string) => rig.server.received.filter((r) => r.path.startsWith(path));
  const conflict = (id: string) =>
    json(409, { type: 'error.list', errors: [{ code: 'conflict', message: `A contact matching those details already exists with id=${id}` }] });

  it('creates a new contact, updates one Intercom already has (409 naming its id), submits events and companies', async () => {
    const p = await vendorPipeline(rig, 'INTERCOM', destination('/ic1'));
    // Users of one ingest shard: the request is one batch, sent in its order.
    const uOld = oneShard('u-new')('u-old');
    rig.server.on('/ic1/contacts', (req, res) =>
      (req.json as { external_id: string }).external_id === uOld
        ? conflict('5da6f18e3d7cf967e4582d05')(req, res)
        : json(200, { type: 'contact', id: 'new' })(req, res),
    );
    rig.server.on('/ic1/contacts/5da6', json(200, { type: 'contact', id: '5da6f18e3d7cf967e4582d05' }));
    rig.server.on('/ic1/events', json(202, {}));
    rig.server.on('/ic1/companies', json(200, { type: 'company', id: 'co1' }));
    await p.send([
      { type: 'identify', userId: 'u-new', messageId: 'i-1', traits: { email: 'new@example.com' } },
      { type: 'identify', userId: uOld, messageId: 'i-2', traits: { email: 'old@example.com', plan: 'pro' } },
      { type: 'track', userId: 'u-new', event: 'signed-up', messageId: 't-1', timestamp: at },
      { type: 'group', userId: 'u-new', groupId: 'acme', messageId: 'g-1', traits: { name: 'Acme' } },
    ]);
    await p.flow();
    const old = { role: 'user', external_id: uOld, email: 'old@example.com', custom_attributes: { plan: 'pro' } };
    expect(received('/ic1').map((r) => [r.method, r.path, r.json])).toEqual([
      ['POST', '/ic1/contacts', { role: 'user', external_id: 'u-new', email: 'new@example.com' }],
      ['POST', '/ic1/contacts', old],
      ['PUT', '/ic1/contacts/5da6f18e3d7cf967e4582d05', old],
      ['POST', '/ic1/events', { event_name: 'signed-up', created_at: AT_SECONDS, user_id: 'u-new' }],
      ['POST', '/ic1/companies', { company_id: 'acme', name: 'Acme' }],
    ]);
    expect(received('/ic1')[0]!.headers).toMatchObject({ authorization: 'Bearer TOKEN', 'intercom-version': '2.11' });
    expect(await p.outcomes()).toMatchObject({ delivered: 4, retrying: 0, aborted: 0 });
  });

  it('parks an event answered 429 and delivers it on a later round; a refused event is aborted naming why', async () => {
    const p = await vendorPipeline(rig, 'INTERCOM', destination('/ic429'));
    let answers = 0;
    rig.server.on('/ic429/events', (req, res) =>
      answers++ === 0 ? json(429, { type: 'error.list', errors: [{ code: 'rate_limit_exceeded' }] })(req, res) : json(202, {})(req, res),
    );
    await p.send([
      { type: 'track', userId: 'u-1', event: 'x', messageId: 't-1' },
      { type: 'track', anonymousId: 'a-2', event: 'x', messageId: 't-2' },
    ]);
    await p.flow();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 1, aborted: 1 });
    await p.flow(12);
    const outcomes = await p.outcomes();
    expect(outcomes).toMatchObject({ delivered: 1, retrying: 0, aborted: 1 });
    expect(JSON.stringify(outcomes)).toContain('Intercom needs a userId (user_id) or context.traits.email on the track event');
  });

  it('holds an event answered 429 with Retry-After for as long as Intercom asked (4 s)', async () => {
    const p = await vendorPipeline(rig, 'INTERCOM', destination('/icra'));
    const times: number[] = [];
    rig.server.on('/icra/events', (req, res) => {
      times.push(Date.now());
      if (times.length > 1) return json(202, {})(req, res);
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '4' }).end(JSON.stringify({ type: 'error.list' }));
    });
    await p.send([{ type: 'track', userId: 'u-1', event: 'x', messageId: 'ra-1' }]);
    await p.flow();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 1 });
    // Retries are due after 20 ms by the policy: rounds run within the four seconds asked, and none sends before they end.
    while (Date.now() < times[0]! + 3500) await p.flow(1);
    await sleep(Math.max(0, times[0]! + 4000 - Date.now()));
    await p.flow(2);
    expect(times.length).toBeGreaterThan(1);
    for (const later of times.slice(1)) expect(later - times[0]!).toBeGreaterThanOrEqual(4000);
    expect(await p.outcomes()).toMatchObject({ delivered: 1, retrying: 0 });
  });

  it('answers the test interface with the contact request and what Intercom said', async () => {
    const p = await vendorPipeline(rig, 'INTERCOM', destination('/ictest'));
    rig.server.on('/ictest/contacts', json(200, { type: 'contact', id: 'c9' }));
    const body = await p.test({ ...base, type: 'identify', traits: { email: 'ada@example.com' } });
    expect(body.destination).toBe('INTERCOM');
    expect(body.data).toEqual([
      {
        dest_transformed_payload: [expected('/contacts', { role: 'user', external_id: 'u-1', email: 'ada@example.com' }, 'a-1', `${rig.server.url}/ictest`)],
        destination_response: [{ type: 'contact', id: 'c9' }],
        destination_response_status: [200],
      },
    ]);
  });
});
