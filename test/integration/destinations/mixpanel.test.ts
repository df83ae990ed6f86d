import { mixpanel } from '../../support/destination-types';
import type { DestinationRequest } from '../../../shared/destinations/types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals } from '../../support/vendor-suite';

/**
 * Mixpanel, from its documentation (docs.mixpanel.com/reference): Ingestion API "Import Events" and "Track
 * Events", "User Profiles" (/engage), "Group Profiles" (/groups), "Identities" ($identify, $create_alias),
 * "Identifying Users (Simplified)" ($device_id/$user_id), "Reserved Properties", "Default Properties", and the
 * GDPR API v3 "Create a Deletion Task".
 */
const config = (extra: Record<string, unknown> = {}) => mixpanel.config.parse({ token: 'TOKEN', ...extra });
const transform = (message: Record<string, unknown>, extra?: Record<string, unknown>) => mixpanel.transform!(message, config(extra));

const context = { ip: '203.0.113.9', os: { name: 'iOS' }, page: { url: 'https://shop.example/cart', referrer: 'https://search.example/' } };
const base = { messageId: 'msg-1', userId: 'u-1', anonymousId: 'a-1', timestamp: '2026-11-23T10:00:00.000Z', context };
// Default Properties taken from `context`, and the fields every event carries (Import Events).
const fromContext = { ip: '203.0.113.9', $os: 'iOS', $current_url: 'https://shop.example/cart', $referrer: 'https://search.example/' };
const stamped = { token: 'TOKEN', distinct_id: 'u-1', time: 1795428000000, $insert_id: 'msg-1', $device_id: 'a-1', $user_id: 'u-1' };

/** A POST with a JSON array body, the way every Ingestion API endpoint takes its objects. */
const arrayPost = (endpoint: string, batch: unknown[], extra: Partial<DestinationRequest> = {}): DestinationRequest => ({
  version: '1',
  type: 'REST',
  method: 'POST',
  endpoint,
  headers: { 'Content-Type': 'application/json' },
  params: {},
  body: { JSON: {}, JSON_ARRAY: { batch }, XML: {}, FORM: {} },
  files: {},
  userId: 'a-1',
  ...extra,
});

/** Profile and group updates ask for the verbose answer, which says whether Mixpanel took them (User Profiles). */
const verbose = { params: { verbose: '1' } };

describe('Mixpanel transform (Ingestion API)', () => {
  it('sends a track to /track with token, distinct_id, time in ms, $insert_id and the event properties (Track Events)', () => {
    expect(transform({ ...base, type: 'track', event: 'Order Completed', properties: { revenue: 42 } })).toEqual([
      arrayPost('https://api.mixpanel.com/track', [{ event: 'Order Completed', properties: { ...fromContext, revenue: 42, ...stamped } }]),
    ]);
  });

  it('sends events to /import?strict=1 with the project secret as Basic user name when apiSecret is set (Import Events, "Authentication")', () => {
    expect(transform({ ...base, type: 'track', event: 'Order Completed' }, { apiSecret: 'SECRET' })).toEqual([
      arrayPost('https://api.mixpanel.com/import', [{ event: 'Order Completed', properties: { ...fromContext, ...stamped } }], {
        headers: { 'Content-Type': 'application/json', Authorization: 'Basic U0VDUkVUOg==' },
        params: { strict: '1' },
      }),
    ]);
  });

  it('names pages and screens "Viewed <name> Page|Screen", and "Viewed Page|Screen" without a name', () => {
    const page = {
      type: 'page',
      name: 'Pricing',
      anonymousId: 'a-1',
      messageId: 'p-1',
      timestamp: '2026-11-23T10:00:00.000Z',
      properties: { url: 'https://shop.example/pricing' },
    };
    expect(transform(page)).toEqual([
      arrayPost('https://api.mixpanel.com/track', [
        {
          event: 'Viewed Pricing Page',
          properties: {
            url: 'https://shop.example/pricing',
            name: 'Pricing',
            token: 'TOKEN',
            distinct_id: 'a-1',
            time: 1795428000000,
            $insert_id: 'p-1',
            $device_id: 'a-1',
          },
        },
      ]),
    ]);
    const [screen] = transform({ ...base, type: 'screen', name: 'Home' });
    expect(screen!.body.JSON_ARRAY.batch).toEqual([{ event: 'Viewed Home Screen', properties: { ...fromContext, name: 'Home', ...stamped } }]);
    const [unnamed] = transform({ ...base, type: 'page' });
    expect(unnamed!.body.JSON_ARRAY.batch).toEqual([{ event: 'Viewed Page', properties: { ...fromContext, ...stamped } }]);
  });

  it('sends an identify as an /engage $set with reserved profile names, plus $identify on /track linking the anonymous id (User Profiles "Set Property", Identities "Create Identity")', () => {
    const message = { ...base, type: 'identify', traits: { email: 'ada@example.com', firstName: 'Ada', plan: 'pro' } };
    expect(transform(message)).toEqual([
      arrayPost(
        'https://api.mixpanel.com/engage',
        [{ $token: 'TOKEN', $distinct_id: 'u-1', $ip: '203.0.113.9', $set: { $email: 'ada@example.com', $first_name: 'Ada', plan: 'pro' } }],
        verbose,
      ),
      arrayPost('https://api.mixpanel.com/track', [
        {
          event: '$identify',
          properties: { token: 'TOKEN', distinct_id: 'u-1', $identified_id: 'u-1', $anon_id: 'a-1', $device_id: 'a-1', $user_id: 'u-1' },
        },
      ]),
    ]);
  });

  it('sends an anonymous identify as the /engage $set only, on the anonymous id; without an address, $ip "0" keeps the profile where it is', () => {
    expect(transform({ type: 'identify', anonymousId: 'a-1', context: { traits: { plan: 'free' } } })).toEqual([
      arrayPost('https://api.mixpanel.com/engage', [{ $token: 'TOKEN', $distinct_id: 'a-1', $ip: '0', $set: { plan: 'free' } }], verbose),
    ]);
  });

  it('sends an alias as $create_alias on /track: distinct_id the previous id, alias the new one (Identities "Create Alias")', () => {
    expect(transform({ type: 'alias', userId: 'u-1', previousId: 'a-1', anonymousId: 'a-1' })).toEqual([
      arrayPost('https://api.mixpanel.com/track', [{ event: '$create_alias', properties: { token: 'TOKEN', distinct_id: 'a-1', alias: 'u-1' } }]),
    ]);
  });

  it('sends a group as a /groups $set of its traits and an /engage $union of the group id under the group key (Group Profiles "Update Property", User Profiles "Union To List Property")', () => {
    const message = { ...base, type: 'group', groupId: 'g-1', traits: { groupType: 'company', name: 'Acme', plan: 'enterprise' } };
    expect(transform(message)).toEqual([
      arrayPost(
        'https://api.mixpanel.com/groups',
        [{ $token: 'TOKEN', $group_key: 'company', $group_id: 'g-1', $set: { name: 'Acme', plan: 'enterprise' } }],
        verbose,
      ),
      arrayPost('https://api.mixpanel.com/engage', [{ $token: 'TOKEN', $distinct_id: 'u-1', $ip: '203.0.113.9', $union: { company: ['g-1'] } }], verbose),
    ]);
    expect(transform({ ...base, type: 'group', groupId: 7 })).toEqual([
      arrayPost('https://api.mixpanel.com/engage', [{ $token: 'TOKEN', $distinct_id: 'u-1', $ip: '203.0.113.9', $union: { group: ['7'] } }], verbose),
    ]);
  });

  it('replaces a messageId that is no valid $insert_id (36 letters, digits or "-") by a stable 36-character hash (Import Events, "properties.$insert_id")', () => {
    const message = { ...base, type: 'track', event: 'x', messageId: 'msg_1:with/odd+chars' };
    const idOf = () => (transform(message)[0]!.body.JSON_ARRAY.batch as { properties: { $insert_id: string } }[])[0]!.properties.$insert_id;
    expect(idOf()).toMatch(/^[0-9a-f]{36}$/);
    expect(idOf()).toBe(idOf());
  });

  it('takes 2,000 events a request on /import and on /track, and 50 profile or group updates on /engage and /groups', () => {
    const maxEvents = mixpanel.batch!.maxEvents as (request: DestinationRequest) => number;
    const sizes = ['track', 'import', 'engage', 'groups'].map((path) => maxEvents(arrayPost(`https://api.mixpanel.com/${path}`, [])));
    expect(sizes).toEqual([2000, 2000, 50, 50]);
  });

  it('uses the EU and India ingestion hosts, or the configured base URL', () => {
    const track = { ...base, type: 'track', event: 'x' };
    expect(transform(track, { dataResidency: 'eu' })[0]!.endpoint).toBe('https://api-eu.mixpanel.com/track');
    expect(transform(track, { dataResidency: 'in' })[0]!.endpoint).toBe('https://api-in.mixpanel.com/track');
    expect(transform(track, { baseUrl: 'http://proxy.local:8080/mp/' })[0]!.endpoint).toBe('http://proxy.local:8080/mp/track');
  });

  it('refuses what Mixpanel cannot take, naming why', () => {
    const cfg = { token: 'TOKEN' };
    expectRefusals(mixpanel, cfg, [
      [{ type: 'track', event: 'x' }, 'Mixpanel needs a userId or an anonymousId on the track event (distinct_id)'],
      [{ type: 'track', userId: 'u-1' }, 'a track event needs an event name'],
      [{ type: 'alias', userId: 'u-1' }, 'a Mixpanel alias needs both previousId and userId'],
      [{ type: 'group', userId: 'u-1' }, 'a Mixpanel group event needs a groupId'],
      [{ type: 'merge', userId: 'u-1' }, 'message type merge is not supported by Mixpanel'],
    ]);
  });

  it('validates its configuration: token required, known residencies, http(s) base URL, no unknown keys', () => {
    expect(mixpanel.config.safeParse({}).success).toBe(false);
    expect(mixpanel.config.safeParse({ token: 't', dataResidency: 'au' }).success).toBe(false);
    expect(mixpanel.config.safeParse({ token: 't', baseUrl: 'ftp://x.example' }).success).toBe(false);
    expect(mixpanel.config.safeParse({ token: 't', region: 'eu' }).success).toBe(false);
  });
});

describe('Mixpanel user deletion (GDPR API v3, "Create a Deletion Task")', () => {
  const { vendor, io } = deletionVendor();
  const users = [{ userId: 'u-1', email: 'a@x.io' }, { userId: 'u-2' }];
  const cfg = () => config({ gdprApiToken: 'GDPR-TOKEN', baseUrl: vendor.url });

  it('posts the distinct ids with compliance_type GDPR, the project token in the query and the OAuth token as Bearer', async () => {
    vendor.on('/', json(200, { status: 'ok', results: { task_id: 'task-1' } }));
    expect(await mixpanel.deleteUsers!(users, cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received).toHaveLength(1);
    expect(vendor.received[0]).toMatchObject({
      method: 'POST',
      path: '/api/app/data-deletions/v3.0/',
      query: { token: 'TOKEN' },
      json: { distinct_ids: ['u-1', 'u-2'], compliance_type: 'GDPR' },
    });
    expect(vendor.received[0]!.headers.authorization).toBe('Bearer GDPR-TOKEN');
    expect(vendor.received[0]!.headers['content-type']).toBe('application/json');
  });

  it('maps the answers: 404 not found, 5xx retryable, other 4xx final, with what Mixpanel said', async () => {
    const cases: [number, unknown][] = [
      [404, { status: 'not_found', reason: 'Mixpanel answered 404: {"error":"x"}' }],
      [500, { status: 'failed', retryable: true, error: 'Mixpanel answered 500: {"error":"x"}' }],
      [400, { status: 'failed', retryable: false, error: 'Mixpanel answered 400: {"error":"x"}' }],
    ];
    for (const [status, expected] of cases) {
      vendor.on('/', json(status, { error: 'x' }));
      expect(await mixpanel.deleteUsers!(users, cfg(), io)).toEqual(expected);
    }
  });

  it('needs the GDPR API token, and sends nothing without it', async () => {
    expect(await mixpanel.deleteUsers!(users, config({ baseUrl: vendor.url }), io)).toEqual({
      status: 'failed',
      error: 'gdprApiToken is required to delete users',
      retryable: false,
    });
    expect(vendor.received).toEqual([]);
  });

  it('sends to the app host of the data residency (GDPR API servers mixpanel.com, eu.mixpanel.com, in.mixpanel.com)', async () => {
    const sent: string[] = [];
    const send = async (r: DestinationRequest) => {
      sent.push(r.endpoint);
      return { status: 201, response: {}, retryable: false };
    };
    for (const dataResidency of ['us', 'eu', 'in']) await mixpanel.deleteUsers!(users, config({ gdprApiToken: 't', dataResidency }), { send });
    expect(sent).toEqual([
      'https://mixpanel.com/api/app/data-deletions/v3.0/',
      'https://eu.mixpanel.com/api/app/data-deletions/v3.0/',
      'https://in.mixpanel.com/api/app/data-deletions/v3.0/',
    ]);
  });
});
