import { combine } from '../../../shared/destinations/batching';
import { iterable } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { deletionVendor, expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Iterable, from its API reference (api.iterable.com/api/docs): POST /api/users/bulkUpdate (BulkUpdateUsersRequest,
 * OptionalApiUser, UserBulkUpdateListResponse and FailedUserUpdates), POST /api/events/trackBulk (BulkTrackRequest,
 * TrackRequest, BulkTrackResponse and FailedEventUpdates), POST /api/commerce/trackPurchase (TrackPurchaseRequest,
 * CommerceItem), POST /api/users/merge (MergeUsersRequest), POST /api/users/forget (UserRequest); and "Getting
 * Started with Iterable's API" for the Api-Key header and the data centres' base URLs. Expected requests are
 * written out from those pages.
 */
const config = (extra: Record<string, unknown> = {}) => iterable.config.parse({ apiKey: 'KEY', ...extra });
const at = '2026-11-23T10:00:00.000Z';
// createdAt: "Expects a unix timestamp".
const AT_SECONDS = 1795428000;
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

const expected = (path: string, body: Record<string, unknown>, userId: string | undefined = 'a-1', host = 'https://api.iterable.com') =>
  jsonPost(`${host}${path}`, { 'Content-Type': 'application/json', 'Api-Key': 'KEY' }, body, userId);

describe('Iterable transform', () => {
  it('identify: one OptionalApiUser of a bulkUpdate, by userId with preferUserId, the traits as dataFields', () => {
    const traits = { email: 'ada@example.com', firstName: 'Ada', plan: 'pro', address: { city: 'London' } };
    expect(iterable.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      expected('/api/users/bulkUpdate', { users: [{ userId: 'u-1', preferUserId: true, dataFields: traits }] }),
    ]);
  });

  it('identify without a userId: the user is named by the email of its traits (email or userId, not both)', () => {
    const message = { type: 'identify', anonymousId: 'a-2', context: { traits: { email: 'b@x.io', plan: 'free' } } };
    expect(iterable.transform!(message, config())).toEqual([
      expected('/api/users/bulkUpdate', { users: [{ email: 'b@x.io', dataFields: { email: 'b@x.io', plan: 'free' } }] }, 'a-2'),
    ]);
  });

  it('track: one TrackRequest of a trackBulk with eventName, id = messageId, createdAt in unix seconds, the properties as dataFields', () => {
    const message = { ...base, type: 'track', event: 'Song Played', properties: { artist: 'Dierks Bentley', seconds: 181 } };
    expect(iterable.transform!(message, config())).toEqual([
      expected('/api/events/trackBulk', {
        events: [{ userId: 'u-1', eventName: 'Song Played', id: 'm-1', createdAt: AT_SECONDS, dataFields: { artist: 'Dierks Bentley', seconds: 181 } }],
      }),
    ]);
  });

  it('the event id is the messageId, or its SHA-256 where it is over 512 bytes (TrackRequest.id)', () => {
    const id = (messageId: unknown) =>
      (iterable.transform!({ ...base, messageId, type: 'track', event: 'x' }, config())[0]!.body.JSON.events as { id?: string }[])[0]!.id;
    expect(id('m-9')).toBe('m-9');
    expect(id('é'.repeat(256))).toBe('é'.repeat(256));
    expect(id('é'.repeat(257))).toMatch(/^[0-9a-f]{64}$/);
    expect(id('é'.repeat(257))).toBe(id('é'.repeat(257)));
    expect(id(undefined)).toBeUndefined();
  });

  it('page and screen: custom events "Viewed <name> Page|Screen" keeping the name as a data field', () => {
    expect(iterable.transform!({ ...base, type: 'page', name: 'Pricing', properties: { url: 'https://x.io/pricing' } }, config())).toEqual([
      expected('/api/events/trackBulk', {
        events: [
          { userId: 'u-1', eventName: 'Viewed Pricing Page', id: 'm-1', createdAt: AT_SECONDS, dataFields: { url: 'https://x.io/pricing', name: 'Pricing' } },
        ],
      }),
    ]);
    const screen = { type: 'screen', anonymousId: 'a-3', context: { traits: { email: 'c@x.io' } } };
    expect(iterable.transform!(screen, config())).toEqual([
      expected('/api/events/trackBulk', { events: [{ email: 'c@x.io', eventName: 'Viewed Screen', dataFields: {} }] }, 'a-3'),
    ]);
  });

  it('Order Completed with products: one trackPurchase with user, CommerceItems, total, id and the other properties as dataFields', () => {
    const properties = {
      order_id: 'o-7',
      total: 27.5,
      currency: 'USD',
      products: [
        {
          product_id: 'p-1',
          sku: 'SKU-1',
          name: 'Socks',
          price: 5.5,
          quantity: 3,
          category: 'Clothing',
          url: 'https://x.io/p-1',
          image_url: 'https://x.io/p-1.png',
        },
        { sku: 'SKU-2', price: 11, colour: 'red' },
      ],
    };
    const message = { ...base, type: 'track', event: 'Order Completed', properties, context: { traits: { email: 'ada@example.com' } } };
    expect(iterable.transform!(message, config())).toEqual([
      expected('/api/commerce/trackPurchase', {
        id: 'm-1',
        user: { userId: 'u-1', preferUserId: true, dataFields: { email: 'ada@example.com' } },
        items: [
          {
            id: 'p-1',
            sku: 'SKU-1',
            name: 'Socks',
            price: 5.5,
            quantity: 3,
            categories: ['Clothing'],
            url: 'https://x.io/p-1',
            imageUrl: 'https://x.io/p-1.png',
          },
          { id: 'SKU-2', sku: 'SKU-2', name: 'SKU-2', price: 11, quantity: 1, dataFields: { colour: 'red' } },
        ],
        total: 27.5,
        createdAt: AT_SECONDS,
        dataFields: { order_id: 'o-7', currency: 'USD' },
      }),
    ]);
    // Without a total or revenue, the total is the sum of the items.
    const { total: _total, ...noTotal } = properties;
    const body = iterable.transform!({ ...message, properties: noTotal }, config())[0]!.body.JSON;
    expect(body.total).toBe(27.5);
    // An order without products is an event like any other.
    expect(iterable.transform!({ ...base, type: 'track', event: 'Order Completed', properties: { total: 3 } }, config())[0]!.endpoint).toBe(
      'https://api.iterable.com/api/events/trackBulk',
    );
  });

  it('alias: the previous user (source) is merged into the userId (destination) (Merge users)', () => {
    expect(iterable.transform!({ type: 'alias', userId: 'u-new', previousId: 'u-old', anonymousId: 'a-1' }, config())).toEqual([
      expected('/api/users/merge', { sourceUserId: 'u-old', destinationUserId: 'u-new' }),
    ]);
  });

  it('sends to the US or EU data centre, or to baseUrl (Getting Started, Base URLs)', () => {
    const endpoint = (extra: Record<string, unknown>) => iterable.transform!({ ...base, type: 'track', event: 'x' }, config(extra))[0]!.endpoint;
    expect(endpoint({})).toBe('https://api.iterable.com/api/events/trackBulk');
    expect(endpoint({ dataCenter: 'US' })).toBe('https://api.iterable.com/api/events/trackBulk');
    expect(endpoint({ dataCenter: 'EU' })).toBe('https://api.eu.iterable.com/api/events/trackBulk');
    expect(endpoint({ dataCenter: 'EU', baseUrl: 'http://proxy.local:9000/it/' })).toBe('http://proxy.local:9000/it/api/events/trackBulk');
  });

  it('batches users and events up to 1,000 a request under 4 MB; one-event requests of an endpoint combine', () => {
    expect(iterable.batch).toMatchObject({ maxEvents: 1000, maxBytes: 3_900_000, lists: ['JSON.users', 'JSON.events'] });
    const requests = ['e1', 'e2'].map((event, i) => iterable.transform!({ ...base, messageId: `m-${i}`, type: 'track', event }, config())[0]!);
    expect((combine(iterable.batch!, requests).body.JSON.events as { eventName: string }[]).map((e) => e.eventName)).toEqual(['e1', 'e2']);
  });

  it('validates the configuration: apiKey required, US or EU, an http(s) baseUrl, no unknown keys', () => {
    expect(iterable.config.safeParse({ apiKey: 'k' }).success).toBe(true);
    expect(iterable.config.safeParse({}).success).toBe(false);
    expect(iterable.config.safeParse({ apiKey: 'k', dataCenter: 'APAC' }).success).toBe(false);
    expect(iterable.config.safeParse({ apiKey: 'k', baseUrl: 'file:///etc' }).success).toBe(false);
    expect(iterable.config.safeParse({ apiKey: 'k', region: 'EU' }).success).toBe(false);
  });

  it('refuses what Iterable cannot take, naming why', () => {
    const cfg = config();
    expectRefusals(iterable, cfg, [
      [{ type: 'track', event: 'x', anonymousId: 'a' }, 'Iterable needs a userId or an email (traits.email) on the track event'],
      [{ type: 'track', userId: 'u' }, 'a track event needs an event name'],
      [{ type: 'group', userId: 'u', groupId: 'g' }, 'message type group is not supported by Iterable (it has no groups)'],
      [{ type: 'alias', userId: 'u' }, 'an Iterable alias needs a userId and a previousId (the users to merge)'],
      [
        { ...base, type: 'track', event: 'Order Completed', properties: { products: [{ name: 'x' }] } },
        'Order Completed product 0 needs a product_id (or sku or id) and a numeric price for an Iterable purchase',
      ],
    ]);
  });
});

describe('Iterable bulk answers, read per event (FailedUserUpdates, FailedEventUpdates)', () => {
  const verdicts = iterable.batch!.verdicts!;
  const chunk = (messages: Record<string, unknown>[]) =>
    combine(
      iterable.batch!,
      messages.map((m) => iterable.transform!(m, config())[0]!),
    );
  const events = chunk([
    { type: 'track', event: 'a', userId: 'u-1' },
    { type: 'track', event: 'b', userId: 'u-2' },
    { type: 'track', event: 'c', context: { traits: { email: 'bad@' } } },
    { type: 'track', event: 'Spam', userId: 'u-4' },
    { type: 'track', event: 'e', userId: 'u-5' },
  ]);

  it('refuses the events of invalid or forgotten users and disallowed names; a user not found yet is sent again; the rest delivered', () => {
    const response = {
      successCount: 1,
      failCount: 4,
      disallowedEventNames: ['Spam'],
      failedUpdates: { invalidEmails: ['bad@'], forgottenUserIds: ['u-2'], notFoundUserIds: ['u-5'] },
    };
    expect(verdicts({ status: 200, response }, 5, events)).toEqual([
      { kind: 'delivered' },
      { kind: 'refused', error: 'Iterable refused the event: failedUpdates.forgottenUserIds names u-2' },
      { kind: 'refused', error: 'Iterable refused the event: failedUpdates.invalidEmails names bad@' },
      { kind: 'refused', error: 'Iterable refused the event: disallowedEventNames names Spam' },
      { kind: 'retryable', error: 'Iterable does not know the user yet: failedUpdates.notFoundUserIds names u-5' },
    ]);
  });

  it("reads a bulkUpdate's users by their identifiers and those of their dataFields (a conflicting email), and the deprecated lists", () => {
    const users = chunk([
      { type: 'identify', userId: 'u-1', traits: { email: 'taken@x.io' } },
      { type: 'identify', userId: 'u 2' },
      { type: 'identify', userId: 'u-3', traits: { plan: 'pro' } },
    ]);
    const response = { successCount: 1, failCount: 2, invalidUserIds: ['u 2'], failedUpdates: { conflictEmails: ['taken@x.io'] } };
    expect(verdicts({ status: 200, response }, 3, users)).toEqual([
      { kind: 'refused', error: 'Iterable refused the event: failedUpdates.conflictEmails names taken@x.io' },
      { kind: 'refused', error: 'Iterable refused the event: failedUpdates.invalidUserIds names u 2' },
      { kind: 'delivered' },
    ]);
  });

  it('leaves the verdict to the status when the answer names none of the chunk, is no 2xx, or the chunk is unknown', () => {
    expect(verdicts({ status: 200, response: { successCount: 5, failCount: 0, failedUpdates: {} } }, 5, events)).toBeUndefined();
    expect(verdicts({ status: 200, response: { failedUpdates: { invalidUserIds: ['someone-else'] } } }, 5, events)).toBeUndefined();
    expect(verdicts({ status: 400, response: { failedUpdates: { invalidUserIds: ['u-1'] } } }, 5, events)).toBeUndefined();
    expect(verdicts({ status: 200, response: { failedUpdates: { invalidUserIds: ['u-1'] } } }, 5)).toBeUndefined();
    expect(verdicts({ status: 200, response: { failedUpdates: { invalidUserIds: ['u-1'] } } }, 4, events)).toBeUndefined();
  });
});

describe('Iterable user deletion (Forget a user in compliance with GDPR)', () => {
  const { vendor, io } = deletionVendor();
  const cfg = () => config({ baseUrl: vendor.url });

  it('forgets each user by userId, and by email where the regulation gives one, with the Api-Key header', async () => {
    vendor.on('/', json(200, { msg: '', code: 'Success', params: null }));
    expect(await iterable.deleteUsers!([{ userId: 'u-1' }, { userId: 'u-2', email: 'b@x.io' }], cfg(), io)).toEqual({ status: 'completed' });
    expect(vendor.received.map((r) => [r.method, r.path, r.headers['api-key'], r.json])).toEqual([
      ['POST', '/api/users/forget', 'KEY', { userId: 'u-1' }],
      ['POST', '/api/users/forget', 'KEY', { userId: 'u-2' }],
      ['POST', '/api/users/forget', 'KEY', { email: 'b@x.io' }],
    ]);
  });

  it('counts a user forgotten when one of the calls is answered 2xx (a project that identifies users by email only)', async () => {
    vendor.on('/', (req, res) =>
      json(
        (req.json as { email?: string }).email ? 200 : 400,
        (req.json as { email?: string }).email ? { code: 'Success', msg: '' } : { code: 'BadParams', msg: 'userId-based forget in an email-based project' },
      )(req, res),
    );
    expect(await iterable.deleteUsers!([{ userId: 'u-2', email: 'b@x.io' }], cfg(), io)).toEqual({ status: 'completed' });
  });

  it('fails retryably on a 429 or 5xx, and finally on a 400 with what Iterable said', async () => {
    vendor.on('/', json(429, { code: 'RateLimitExceeded', msg: 'slow down' }));
    expect(await iterable.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: true,
      error: 'Iterable answered 429: {"code":"RateLimitExceeded","msg":"slow down"}',
    });
    vendor.on('/', json(400, { code: 'BadParams', msg: 'no such user' }));
    expect(await iterable.deleteUsers!([{ userId: 'u-1' }], cfg(), io)).toEqual({
      status: 'failed',
      retryable: false,
      error: 'Iterable answered 400: {"code":"BadParams","msg":"no such user"}',
    });
  });
});
