import { setTimeout as sleep } from 'node:timers/promises';
import { buildRequests } from '../../../shared/destinations';
import { hubspot } from '../../support/destination-types';
import { deliveryRig } from '../../support/delivery-rig';
import { json } from '../../support/destination-server';
import { noContent, vendorPipeline } from '../../support/vendor-pipeline';
import { oneShard } from '../../support/ingest-items';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * HubSpot, from its API reference (developers.hubspot.com/docs/api-reference): "Create or update a batch of
 * contacts by unique property values" (POST /crm/v3/objects/contacts/batch/upsert, inputs of {id, idProperty,
 * properties, objectWriteTraceId}), "Send custom event occurrences" and "Send a batch of event occurrences" (POST
 * /events/v3/send/batch, inputs of {eventName, email, occurredAt, uuid, properties}, answered 204), "GDPR DELETE"
 * (POST /crm/v3/objects/contacts/gdpr-delete, {objectId, idProperty}), "Error handling" (207 multi-status).
 * Expected requests are written out from those pages.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_CONFIG_CACHE_MS = '1';

const config = (extra: Record<string, unknown> = {}) => hubspot.config.parse({ accessToken: 'pat-na1-TOKEN', portalId: '1234', ...extra });
const headers = { 'Content-Type': 'application/json', Authorization: 'Bearer pat-na1-TOKEN' };
const at = '2026-11-23T10:00:00.000Z';
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at, context: { traits: { email: 'ada@example.com' } } };

const expected = (path: string, body: Record<string, unknown>, userId: string | undefined = 'a-1') =>
  jsonPost(`https://api.hubapi.com${path}`, headers, body, userId);

describe('HubSpot transform (contacts batch upsert, custom event occurrences)', () => {
  it('identify: one upsert input by email (idProperty email), default contact properties from the traits, the messageId as objectWriteTraceId', () => {
    const traits = {
      email: 'ada@example.com',
      firstName: 'Ada',
      lastName: 'Lovelace',
      phone: '+441234567890',
      company: 'Analytical Engines',
      title: 'Programmer',
      address: { street: '12 St James Sq', city: 'London', postalCode: 'SW1Y', country: 'GB' },
      plan: 'pro',
      seats: 3,
    };
    expect(hubspot.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      expected('/crm/v3/objects/contacts/batch/upsert', {
        inputs: [
          {
            id: 'ada@example.com',
            idProperty: 'email',
            objectWriteTraceId: 'm-1',
            properties: {
              email: 'ada@example.com',
              firstname: 'Ada',
              lastname: 'Lovelace',
              phone: '+441234567890',
              company: 'Analytical Engines',
              jobtitle: 'Programmer',
              address: '12 St James Sq',
              city: 'London',
              zip: 'SW1Y',
              country: 'GB',
            },
          },
        ],
      }),
    ]);
  });

  it('identify: further traits only where contactProperties names them, as text (HubSpot refuses properties its account lacks)', () => {
    const cfg = config({
      contactProperties: [
        { from: 'plan', to: 'weir_plan' },
        { from: 'seats', to: 'seat_count' },
        { from: 'missing', to: 'x' },
      ],
    });
    const [request] = hubspot.transform!({ ...base, type: 'identify', traits: { email: 'ada@example.com', plan: 'pro', seats: 3, beta: true } }, cfg);
    expect((request!.body.JSON.inputs as { properties: unknown }[])[0]!.properties).toEqual({ email: 'ada@example.com', weir_plan: 'pro', seat_count: '3' });
  });

  it('track: a custom event occurrence named pe<HubID>_<name>, the contact by email, occurredAt, uuid = messageId, properties as text', () => {
    const message = { ...base, type: 'track', event: 'Trial Started', properties: { plan: 'pro', seats: 3, trial: true, nested: { a: 1 } } };
    expect(hubspot.transform!(message, config())).toEqual([
      expected('/events/v3/send/batch', {
        inputs: [
          {
            eventName: 'pe1234_trial_started',
            email: 'ada@example.com',
            occurredAt: at,
            uuid: 'm-1',
            properties: { plan: 'pro', seats: '3', trial: 'true' },
          },
        ],
      }),
    ]);
  });

  it('track: property names made internal names (lowercase a-z 0-9 _, from a letter, 50 at most), values cut to 50 characters, 200 for URLs and referrers (property limits)', () => {
    const long = 'x'.repeat(300);
    const properties = {
      'Plan Name': 'pro',
      '2nd-Step': 'b',
      plan_name: 'dup',
      page_url: long,
      referrer: long,
      note: long,
      ['k'.repeat(60)]: 'v',
      '!!!': 'gone',
    };
    const [request] = hubspot.transform!({ ...base, type: 'track', event: 'Trial Started', properties }, config());
    expect((request!.body.JSON.inputs as { properties: Record<string, string> }[])[0]!.properties).toEqual({
      plan_name: 'pro',
      nd_step: 'b',
      page_url: 'x'.repeat(200),
      referrer: 'x'.repeat(200),
      note: 'x'.repeat(50),
      ['k'.repeat(50)]: 'v',
    });
  });

  it('track: eventNames maps an event to its fully qualified name; a name already qualified is kept; without either it is refused', () => {
    const name = (event: string, cfg = config()) =>
      (hubspot.transform!({ ...base, type: 'track', event }, cfg)[0]!.body.JSON.inputs as { eventName: string }[])[0]!.eventName;
    expect(name('Order Completed', config({ eventNames: [{ from: 'Order Completed', to: 'pe1234_purchase' }] }))).toBe('pe1234_purchase');
    expect(name('pe99_login')).toBe('pe99_login');
    expect(name('Signed Up!')).toBe('pe1234_signed_up');
    const unmapped = hubspot.config.parse({ accessToken: 't' });
    expect(buildRequests(hubspot, { ...base, type: 'track', event: 'Signed Up' }, unmapped)).toEqual({
      ok: false,
      error: 'HubSpot needs the fully qualified name of the custom event "Signed Up": map it in eventNames or set portalId',
    });
  });

  it('sends to baseUrl where given (proxies, tests)', () => {
    expect(hubspot.transform!({ ...base, type: 'track', event: 'x' }, config({ baseUrl: 'http://proxy.local:81/hs/' }))[0]!.endpoint).toBe(
      'http://proxy.local:81/hs/events/v3/send/batch',
    );
  });

  it('refuses what HubSpot cannot take, naming why', () => {
    const cfg = config();
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`p${i}`, i]));
    expectRefusals(hubspot, cfg, [
      [{ type: 'identify', userId: 'u', traits: { name: 'Ada' } }, 'HubSpot identifies contacts by email: the identify event needs traits.email'],
      [{ type: 'track', userId: 'u', event: 'x' }, 'HubSpot ties an event occurrence to a contact by email: the track event needs context.traits.email'],
      [{ ...base, type: 'track', event: 'x', properties: many }, 'HubSpot takes at most 50 properties per event occurrence; the event has 51'],
      [{ ...base, type: 'page', name: 'Home' }, 'message type page is not supported by HubSpot (contacts come from identify, custom events from track)'],
    ]);
  });

  it('validates the configuration: an access token, a numeric portalId, {from, to} pairs, an http(s) baseUrl, no unknown keys', () => {
    expect(hubspot.config.safeParse({ accessToken: 't' }).success).toBe(true);
    expect(hubspot.config.safeParse({}).success).toBe(false);
    expect(hubspot.config.safeParse({ accessToken: 't', portalId: 'abc' }).error?.issues[0]?.message).toBe('portalId must be the HubID, digits only');
    expect(hubspot.config.safeParse({ accessToken: 't', eventNames: [{ from: 'a' }] }).success).toBe(false);
    expect(hubspot.config.safeParse({ accessToken: 't', baseUrl: 'ftp://x' }).success).toBe(false);
    expect(hubspot.config.safeParse({ accessToken: 't', apiKey: 'k' }).success).toBe(false);
  });

  it('batches up to 100 inputs; a contact is one item key per email, events have none', () => {
    expect(hubspot.batch).toMatchObject({ maxEvents: 100, maxBytes: 1_000_000, lists: ['JSON.inputs'] });
    const key = (message: Record<string, unknown>) => hubspot.batch!.itemKey!(hubspot.transform!(message, config())[0]!);
    expect(key({ ...base, type: 'identify', traits: { email: 'Ada@Example.com' } })).toBe('contact:ada@example.com');
    expect(key({ ...base, type: 'track', event: 'x' })).toBeUndefined();
  });

  it('reads a 207 per input: those its errors name by objectWriteTraceId are refused, the others written', () => {
    const request = hubspot.transform!({ ...base, type: 'identify' }, config())[0]!;
    const combined = {
      ...request,
      body: { ...request.body, JSON: { inputs: ['m-1', 'm-2', 'm-3'].map((id) => ({ id: `${id}@x.io`, objectWriteTraceId: id })) } },
    };
    const errors = [{ status: 'error', category: 'VALIDATION_ERROR', message: 'Property values were not valid', context: { objectWriteTraceId: ['m-2'] } }];
    expect(hubspot.batch!.verdicts!({ status: 207, response: { status: 'COMPLETE', results: [], errors } }, 3, combined)).toEqual([
      { kind: 'delivered' },
      { kind: 'refused', error: 'HubSpot refused the contact: Property values were not valid' },
      { kind: 'delivered' },
    ]);
    expect(hubspot.batch!.verdicts!({ status: 200, response: { status: 'COMPLETE', results: [] } }, 3, combined)).toBeUndefined();
    expect(hubspot.batch!.verdicts!({ status: 207, response: { errors: [{ message: 'x', context: {} }] } }, 3, combined)).toBeUndefined();
  });
});

describe('HubSpot user deletion (GDPR DELETE)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = () => config({ baseUrl: vendor.url });

  it('deletes each contact by email with the bearer token, and completes when all are answered 2xx', async () => {
    vendor.on('/', noContent);
    expect(
      await hubspot.deleteUsers!(
        [
          { userId: 'u-1', email: 'ada@example.com' },
          { userId: 'u-2', email: 'bob@example.com' },
        ],
        cfg(),
        io,
      ),
    ).toEqual({
      status: 'completed',
    });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers.authorization, r.json])).toEqual([
      ['POST', '/crm/v3/objects/contacts/gdpr-delete', 'Bearer pat-na1-TOKEN', { objectId: 'ada@example.com', idProperty: 'email' }],
      ['POST', '/crm/v3/objects/contacts/gdpr-delete', 'Bearer pat-na1-TOKEN', { objectId: 'bob@example.com', idProperty: 'email' }],
    ]);
  });

  it('deletes the others and fails finally for a user without an email; a 5xx fails retryably', async () => {
    vendor.on('/', noContent);
    expect(await hubspot.deleteUsers!([{ userId: 'u-1' }, { userId: 'u-2', email: 'bob@example.com' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'HubSpot deletes contacts by email; user u-1 has none',
    });
    expect(vendor.received).toHaveLength(1);
    vendor.on('/', json(502, { status: 'error', message: 'bad gateway' }));
    expect(await hubspot.deleteUsers!([{ userId: 'u-1' }, { userId: 'u-2', email: 'bob@example.com' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: true,
      error: 'HubSpot answered 502: {"status":"error","message":"bad gateway"}',
    });
  });
});

describe('HubSpot live delivery and test interface', () => {
  const rig = deliveryRig();
  const destination = (path: string) => ({ accessToken: 'pat-na1-TOKEN', portalId: '1234', baseUrl: `${rig.server.url}${path}` });
  const received = (path: string) => rig.server.received.filter((r) => r.path.startsWith(path));
  const email = (i: number) => ({ context: { traits: { email: `user${i}@example.com` } } });
  // Users of one ingest shard: a request of theirs is stored, and delivered, as one batch.
  const user = oneShard('u-0');

  it('sends events as one batch of occurrences, and contacts in upserts that never name one email twice', async () => {
    const p = await vendorPipeline(rig, 'HS', destination('/hs1'));
    rig.server.on('/hs1/events', noContent);
    rig.server.on('/hs1/crm', json(200, { status: 'COMPLETE', results: [] }));
    const tracks = Array.from({ length: 6 }, (_, i) => ({ type: 'track', userId: user(`u-${i}`), event: 'Trial Started', messageId: `t-${i}`, ...email(i) }));
    const identifies = [0, 1, 0, 2].map((n, i) => ({
      type: 'identify',
      userId: user(`u-${n}`),
      messageId: `i-${i}`,
      traits: { email: `user${n}@example.com` },
    }));
    await p.send([...tracks, ...identifies]);
    await p.flow();
    const events = received('/hs1/events/v3/send/batch').map((r) => (r.json as { inputs: { uuid: string }[] }).inputs.map((e) => e.uuid));
    expect(events).toEqual([['t-0', 't-1', 't-2', 't-3', 't-4', 't-5']]);
    const upserts = received('/hs1/crm/v3/objects/contacts/batch/upsert').map((r) => (r.json as { inputs: { id: string }[] }).inputs.map((c) => c.id));
    expect(upserts).toEqual([
      ['user0@example.com', 'user1@example.com'],
      ['user0@example.com', 'user2@example.com'],
    ]);
    expect(received('/hs1')[0]!.headers.authorization).toBe('Bearer pat-na1-TOKEN');
    expect(await p.outcomes()).toMatchObject({ delivered: 10, retrying: 0, aborted: 0 });
  });

  it('aborts only the contact a 207 names by objectWriteTraceId; the others are delivered', async () => {
    const p = await vendorPipeline(rig, 'HS', destination('/hs207'));
    const errors = [{ status: 'error', category: 'VALIDATION_ERROR', message: 'Email address is invalid', context: { objectWriteTraceId: ['i-1'] } }];
    rig.server.on('/hs207', json(207, { status: 'COMPLETE', results: [], errors, numErrors: 1 }));
    await p.send([0, 1, 2].map((i) => ({ type: 'identify', userId: user(`u-${i}`), messageId: `i-${i}`, traits: { email: `user${i}@example.com` } })));
    await p.flow();
    expect(received('/hs207')).toHaveLength(1);
    const outcomes = await p.outcomes();
    expect(outcomes).toMatchObject({ delivered: 2, retrying: 0, aborted: 1 });
    expect(JSON.stringify(outcomes)).toContain('HubSpot refused the contact: Email address is invalid');
  });

  it('parks a chunk answered 429 and delivers it on a later round', async () => {
    const p = await vendorPipeline(rig, 'HS', destination('/hs429'));
    let answers = 0;
    rig.server.on('/hs429', (req, res) => (answers++ === 0 ? json(429, { status: 'error', category: 'RATE_LIMITS' })(req, res) : noContent(req, res)));
    await p.send([0, 1].map((i) => ({ type: 'track', userId: user(`u-${i}`), event: 'x', messageId: `t-${i}`, ...email(i) })));
    await p.flow();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 2 });
    await p.flow(12);
    expect(await p.outcomes()).toMatchObject({ delivered: 2, retrying: 0, aborted: 0 });
  });

  it('keeps a chunk answered 429 with Retry-After parked until the time HubSpot asked for (4 s), though retries are due sooner', async () => {
    const p = await vendorPipeline(rig, 'HS', destination('/hsra'));
    const times: number[] = [];
    rig.server.on('/hsra', (req, res) => {
      times.push(Date.now());
      if (times.length > 1) return noContent(req, res);
      res.writeHead(429, { 'Content-Type': 'application/json', 'Retry-After': '4' }).end(JSON.stringify({ status: 'error', category: 'RATE_LIMITS' }));
    });
    await p.send([0, 1, 2].map((i) => ({ type: 'track', userId: user(`u-${i}`), event: 'x', messageId: `ra-${i}`, ...email(i) })));
    await p.flow();
    expect(await p.outcomes()).toMatchObject({ delivered: 0, retrying: 3 });
    // The policy's retry delay is 20 ms: rounds run within the four seconds asked, and none sends before they end.
    while (Date.now() < times[0]! + 3500) await p.flow(1);
    await sleep(Math.max(0, times[0]! + 4000 - Date.now()));
    await p.flow(2);
    expect(times.length).toBeGreaterThan(1);
    for (const later of times.slice(1)) expect(later - times[0]!).toBeGreaterThanOrEqual(4000);
    expect(await p.outcomes()).toMatchObject({ delivered: 3, retrying: 0, aborted: 0 });
  });

  it('answers the test interface with the occurrence request and what HubSpot said', async () => {
    const p = await vendorPipeline(rig, 'HS', destination('/hstest'));
    rig.server.on('/hstest', noContent);
    const body = await p.test({ ...base, type: 'track', event: 'Trial Started', properties: { plan: 'pro' } });
    expect(body.destination).toBe('HS');
    expect(body.data).toEqual([
      {
        dest_transformed_payload: [
          {
            ...expected('/events/v3/send/batch', {
              inputs: [{ eventName: 'pe1234_trial_started', email: 'ada@example.com', occurredAt: at, uuid: 'm-1', properties: { plan: 'pro' } }],
            }),
            endpoint: `${rig.server.url}/hstest/events/v3/send/batch`,
          },
        ],
        destination_response: [''],
        destination_response_status: [204],
      },
    ]);
    expect(received('/hstest')).toHaveLength(1);
  });
});
