import { buildRequests } from '../../../shared/destinations';
import { combine, envelopeOf } from '../../../shared/destinations/batching';
import { ga4 } from '../../support/destination-types';
import { expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Google Analytics 4, from the Measurement Protocol documentation (developers.google.com/analytics/devguides/
 * collection/protocol/ga4): "Send Measurement Protocol events" (request format, "Limitations"), "Measurement
 * Protocol reference" (JSON POST body, "Reserved names"), "Send user properties", "Validate events" and the events
 * reference (page_view, join_group, screen_view, view_item, add_to_cart, begin_checkout, purchase, search).
 */
const config = (extra: Record<string, unknown> = {}) => ga4.config.parse({ apiSecret: 'SECRET', measurementId: 'G-TEST', ...extra });
const at = '2026-11-23T10:00:00.000Z';
const AT_MICROS = 1795428000000000;
const base = { messageId: 'm-1', userId: 'u-1', anonymousId: 'a-1', timestamp: at };

/** The whole §2.7 request of a web-stream collect call. */
const expected = (body: Record<string, unknown>, extra: { endpoint?: string; params?: Record<string, string> } = {}) =>
  jsonPost(
    extra.endpoint ?? 'https://www.google-analytics.com/mp/collect',
    { 'Content-Type': 'application/json' },
    body,
    'a-1',
    extra.params ?? { measurement_id: 'G-TEST', api_secret: 'SECRET' },
  );

/** The single event a message becomes (without its time, which every event carries). */
const eventOf = (message: Record<string, unknown>, extra?: Record<string, unknown>) => {
  const [request] = ga4.transform!({ ...base, ...message }, config(extra));
  const { timestamp_micros, ...event } = (request!.body.JSON.events as Record<string, unknown>[])[0]!;
  expect(timestamp_micros).toBe(AT_MICROS);
  return event;
};

describe('GA4 transform (Measurement Protocol)', () => {
  it('track: a custom event, name in snake_case, properties as params (nested ones flattened), client_id, user_id, timestamp_micros on the event (JSON POST body)', () => {
    const properties = { plan: 'pro', seats: 3, trial: true, address: { city: 'Oslo', tags: ['a', 'b'] } };
    expect(ga4.transform!({ ...base, type: 'track', event: 'Signed Up', properties }, config())).toEqual([
      expected({
        client_id: 'a-1',
        user_id: 'u-1',
        events: [
          {
            name: 'signed_up',
            params: { plan: 'pro', seats: 3, trial: true, address_city: 'Oslo', address_tags_0: 'a', address_tags_1: 'b' },
            timestamp_micros: AT_MICROS,
          },
        ],
      }),
    ]);
  });

  it('"Product Viewed" → view_item with currency, value (price × quantity) and items (events reference: view_item, Item parameters)', () => {
    const properties = {
      product_id: 'SKU_12345',
      sku: 'S-1',
      name: 'Stan and Friends Tee',
      brand: 'Google',
      category: 'Apparel',
      variant: 'green',
      price: 10.01,
      quantity: 3,
      currency: 'USD',
      color: 'green',
    };
    expect(eventOf({ type: 'track', event: 'Product Viewed', properties })).toEqual({
      name: 'view_item',
      params: {
        currency: 'USD',
        value: 30.03,
        items: [
          {
            item_id: 'SKU_12345',
            item_name: 'Stan and Friends Tee',
            item_brand: 'Google',
            item_category: 'Apparel',
            item_variant: 'green',
            price: 10.01,
            quantity: 3,
          },
        ],
        color: 'green',
      },
    });
  });

  it('"Order Completed" → purchase with transaction_id, value, currency, tax, shipping, coupon and items (events reference: purchase)', () => {
    const properties = {
      order_id: 'T_12345',
      revenue: 30.03,
      total: 34.47,
      tax: 1.11,
      shipping: 3.33,
      currency: 'USD',
      coupon: 'SUMMER_FUN',
      affiliation: 'Google TableClient',
      products: [
        { product_id: 'SKU_12345', name: 'Stan and Friends Tee', price: 10.01, quantity: 3, position: 0 },
        { name: 'Sticker', price: '0' },
        { note: 'no id or name: left out' },
      ],
    };
    expect(eventOf({ type: 'track', event: 'Order Completed', properties })).toEqual({
      name: 'purchase',
      params: {
        transaction_id: 'T_12345',
        currency: 'USD',
        value: 30.03,
        tax: 1.11,
        shipping: 3.33,
        coupon: 'SUMMER_FUN',
        affiliation: 'Google TableClient',
        items: [
          { item_id: 'SKU_12345', item_name: 'Stan and Friends Tee', price: 10.01, quantity: 3, index: 0 },
          { item_name: 'Sticker', price: 0 },
        ],
      },
    });
  });

  it('maps the other recommended events: add_to_cart, begin_checkout, search (events reference)', () => {
    expect(eventOf({ type: 'track', event: 'Product Added', properties: { product_id: 'p-1', price: 5, currency: 'EUR' } })).toEqual({
      name: 'add_to_cart',
      params: { currency: 'EUR', value: 5, items: [{ item_id: 'p-1', price: 5 }] },
    });
    expect(
      eventOf({
        type: 'track',
        event: 'Checkout Started',
        properties: { value: 12, currency: 'EUR', coupon: 'X', products: [{ sku: 's-2', quantity: 2 }] },
      }),
    ).toEqual({
      name: 'begin_checkout',
      params: { currency: 'EUR', value: 12, coupon: 'X', items: [{ item_id: 's-2', quantity: 2 }] },
    });
    expect(eventOf({ type: 'track', event: 'Products Searched', properties: { query: 'blue tee' } })).toEqual({
      name: 'search',
      params: { search_term: 'blue tee' },
    });
  });

  it('event names: start with a letter, only [A-Za-z0-9_], at most 40 characters (Limitations)', () => {
    expect(eventOf({ type: 'track', event: 'buttonClicked' })).toEqual({ name: 'button_clicked', params: {} });
    expect(eventOf({ type: 'track', event: '2024 Promo Clicked!' })).toEqual({ name: 'promo_clicked', params: {} });
    expect(eventOf({ type: 'track', event: 'Video 2 Played' })).toEqual({ name: 'video_2_played', params: {} });
    expect(eventOf({ type: 'track', event: `A ${'b'.repeat(60)}` })).toEqual({ name: `a_${'b'.repeat(38)}`, params: {} });
  });

  it('refuses reserved event names and prefixes (Reserved names), and names without letters', () => {
    const cfg = config();
    expectRefusals(ga4, cfg, [
      [{ ...base, type: 'track', event: 'Session Start' }, 'event name "Session Start" becomes "session_start", a name GA4 reserves'],
      [{ ...base, type: 'track', event: 'first_visit' }, 'event name "first_visit" becomes "first_visit", a name GA4 reserves'],
      [{ ...base, type: 'track', event: 'Google Thing' }, 'event name "Google Thing" becomes "google_thing", a name GA4 reserves'],
      [{ ...base, type: 'track', event: 'In App Purchase' }, 'GA4 takes in_app_purchase only from app streams (typesOfClient firebase)'],
      [{ ...base, type: 'track', event: '!!! 42' }, 'event name "!!! 42" has no letters GA4 can use (names start with a letter and take only [A-Za-z0-9_])'],
    ]);
  });

  it('params: at most 25, names cleaned to 40 characters, values cut to 100, reserved names dropped (Limitations, Reserved names)', () => {
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i + 1}`, i + 1]));
    const kept = Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`p${i + 1}`, i + 1]));
    expect(eventOf({ type: 'track', event: 'x', properties: many })).toEqual({ name: 'x', params: kept });
    const properties = {
      long: 'y'.repeat(150),
      ga_session: 1,
      firebase_conversion: 1,
      google_x: 1,
      _private: 'ok',
      [`n${'a'.repeat(50)}`]: 1,
      'with space': 2,
    };
    expect(eventOf({ type: 'track', event: 'x', properties })).toEqual({
      name: 'x',
      params: { long: 'y'.repeat(100), private: 'ok', [`n${'a'.repeat(39)}`]: 1, with_space: 2 },
    });
  });

  it('page → page_view with page_location, page_title, page_referrer from the page (events reference: page_view)', () => {
    const context = { page: { url: 'https://x.io/pricing', title: 'Pricing | X', referrer: 'https://google.com/' } };
    expect(ga4.transform!({ ...base, type: 'page', name: 'Pricing', properties: { path: '/pricing' }, context }, config())).toEqual([
      expected({
        client_id: 'a-1',
        user_id: 'u-1',
        events: [
          {
            name: 'page_view',
            params: {
              page_location: 'https://x.io/pricing',
              page_title: 'Pricing | X',
              page_referrer: 'https://google.com/',
              path: '/pricing',
            },
            timestamp_micros: AT_MICROS,
          },
        ],
      }),
    ]);
    expect(eventOf({ type: 'page', name: 'Home', properties: { url: 'https://x.io/' } })).toEqual({
      name: 'page_view',
      params: { page_location: 'https://x.io/', page_title: 'Home' },
    });
  });

  it('identify → user_properties as {value}: names at most 24, values at most 36, reserved ones dropped, timestamp_micros on the request for them (Send user properties, Limitations)', () => {
    const traits = {
      plan: 'pro',
      seats: 3,
      verified: true,
      bio: 'z'.repeat(50),
      user_id: 'u-1',
      ga_x: 1,
      company: { name: 'Acme' },
      favourite_programming_language: 'ts',
    };
    expect(ga4.transform!({ ...base, type: 'identify', traits }, config())).toEqual([
      expected({
        client_id: 'a-1',
        user_id: 'u-1',
        timestamp_micros: AT_MICROS,
        user_properties: {
          plan: { value: 'pro' },
          seats: { value: 3 },
          verified: { value: true },
          bio: { value: 'z'.repeat(36) },
          favourite_programming_la: { value: 'ts' },
        },
        events: [{ name: 'identify', params: {}, timestamp_micros: AT_MICROS }],
      }),
    ]);
  });

  it('group → join_group with group_id (events reference: join_group)', () => {
    expect(eventOf({ type: 'group', groupId: 42 })).toEqual({ name: 'join_group', params: { group_id: '42' } });
  });

  it("session_id and engagement_time_msec from the SDK's session, first among the 25 params, so that the event shows in Realtime and in sessions (Send events)", () => {
    // RudderStack's JavaScript SDK v3 puts its session in context.sessionId; gtag's own goes in integrations.GA4.
    const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, i]));
    const tracked = eventOf({ type: 'track', event: 'Signed Up', context: { sessionId: 1795427900123 }, properties: many });
    expect(Object.entries(tracked.params as object).slice(0, 3)).toEqual([
      ['session_id', 1795427900123],
      ['engagement_time_msec', 1],
      ['p0', 0],
    ]);
    expect(Object.keys(tracked.params as object)).toHaveLength(25);
    const page = eventOf({
      type: 'page',
      name: 'Home',
      context: { sessionId: 7 },
      integrations: { GA4: { sessionId: '1795427000' } },
      properties: { engagement_time_msec: 5200 },
    });
    expect(page.params).toMatchObject({ session_id: '1795427000', engagement_time_msec: 5200 });
    // Without a session there is nothing to place the event in; an identify is no user activity.
    expect(eventOf({ type: 'track', event: 'Signed Up' }).params).toEqual({});
    expect(eventOf({ type: 'identify', context: { sessionId: 7 }, traits: { plan: 'pro' } }).params).toEqual({});
  });

  it('sends the consent the page gave in integrations.GA4.consent (ad_user_data, ad_personalization: GRANTED or DENIED), and none it did not (reference: consent)', () => {
    const bodyOf = (integrations?: unknown) =>
      ga4.transform!({ ...base, type: 'track', event: 'Signed Up', ...(integrations !== undefined && { integrations }) }, config())[0]!.body.JSON;
    expect(bodyOf({ GA4: { consent: { ad_user_data: 'granted', ad_personalization: 'DENIED', other: 'x' } } }).consent).toEqual({
      ad_user_data: 'GRANTED',
      ad_personalization: 'DENIED',
    });
    expect(bodyOf({ GA4: { consent: { ad_user_data: 'maybe' } } })).not.toHaveProperty('consent');
    expect(bodyOf()).not.toHaveProperty('consent');
  });

  it('screen → screen_view for app streams: firebase_app_id in the query, app_instance_id in the body (Reserved names: app streams only)', () => {
    const cfg = ga4.config.parse({ apiSecret: 'SECRET', typesOfClient: 'firebase', firebaseAppId: '1:123:android:abc' });
    const message = { ...base, type: 'screen', name: 'Home', integrations: { GA4: { appInstanceId: 'cbd7e7f2a7d34c5f9b8e2f1a0c3d4e5f' } } };
    expect(ga4.transform!(message, cfg)).toEqual([
      expected(
        {
          app_instance_id: 'cbd7e7f2a7d34c5f9b8e2f1a0c3d4e5f',
          user_id: 'u-1',
          events: [{ name: 'screen_view', params: { screen_name: 'Home' }, timestamp_micros: AT_MICROS }],
        },
        { params: { firebase_app_id: '1:123:android:abc', api_secret: 'SECRET' } },
      ),
    ]);
    expect(buildRequests(ga4, { ...base, type: 'screen', name: 'Home' }, config())).toEqual({
      ok: false,
      error: 'GA4 takes screen_view only from app streams (typesOfClient firebase)',
    });
  });

  it('batches the events of one client: up to 25 per request, combined only where client, user and user properties are the same (Limitations)', () => {
    const api = ga4.batch!;
    expect(api).toMatchObject({ maxEvents: 25, maxBytes: 125_000, lists: ['JSON.events'] });
    const request = (message: Record<string, unknown>) => ga4.transform!({ ...base, ...message }, config())[0]!;
    const first = request({ type: 'track', event: 'a', timestamp: '2026-11-23T10:00:00.000Z' });
    const second = request({ type: 'page', name: 'Home', timestamp: '2026-11-23T10:00:05.000Z' });
    // Different times no longer keep one client's events apart.
    expect(envelopeOf(api, second)).toBe(envelopeOf(api, first));
    expect(combine(api, [first, second]).body.JSON).toEqual({
      client_id: 'a-1',
      user_id: 'u-1',
      events: [
        { name: 'a', params: {}, timestamp_micros: AT_MICROS },
        { name: 'page_view', params: { page_title: 'Home' }, timestamp_micros: AT_MICROS + 5_000_000 },
      ],
    });
    // Request-level fields keep their own requests: another client, another user, user properties.
    expect(envelopeOf(api, request({ type: 'track', event: 'a', anonymousId: 'a-2' }))).not.toBe(envelopeOf(api, first));
    expect(envelopeOf(api, request({ type: 'track', event: 'a', userId: 'u-2' }))).not.toBe(envelopeOf(api, first));
    const identify = request({ type: 'identify', traits: { plan: 'pro' } });
    expect(envelopeOf(api, identify)).not.toBe(envelopeOf(api, first));
    expect(envelopeOf(api, identify)).not.toBe(envelopeOf(api, request({ type: 'identify', traits: { plan: 'free' } })));
  });

  it('alias is refused: GA4 has no alias', () => {
    expect(buildRequests(ga4, { ...base, type: 'alias', previousId: 'p' }, config())).toEqual({
      ok: false,
      error: 'GA4 has no alias: users are linked by client_id and user_id on each event',
    });
  });

  it('client_id: integrations.GA4.clientId overrides the anonymousId; without either the event is refused', () => {
    const [request] = ga4.transform!({ ...base, type: 'track', event: 'x', integrations: { GA4: { clientId: '123456.7654321' } } }, config());
    expect(request!.body.JSON.client_id).toBe('123456.7654321');
    expect(buildRequests(ga4, { type: 'track', event: 'x', userId: 'u-1' }, config())).toEqual({
      ok: false,
      error: 'GA4 needs an anonymousId (or integrations.GA4.clientId) as client_id',
    });
  });

  it('debugMode sends to /debug/mp/collect (Validate events); baseUrl replaces the host, e.g. the EU endpoint region1 (reference, Transport)', () => {
    expect(ga4.transform!({ ...base, type: 'track', event: 'x' }, config({ debugMode: true }))[0]!.endpoint).toBe(
      'https://www.google-analytics.com/debug/mp/collect',
    );
    expect(ga4.transform!({ ...base, type: 'track', event: 'x' }, config({ baseUrl: 'https://region1.google-analytics.com/' }))[0]!.endpoint).toBe(
      'https://region1.google-analytics.com/mp/collect',
    );
  });

  it('validates the configuration: apiSecret, measurementId for gtag, firebaseAppId for firebase, http(s) baseUrl', () => {
    expect(ga4.config.safeParse({ apiSecret: 's', measurementId: 'G-1' }).success).toBe(true);
    expect(ga4.config.safeParse({ apiSecret: 's' }).error?.issues[0]?.message).toBe('measurementId is required for gtag');
    expect(ga4.config.safeParse({ apiSecret: 's', typesOfClient: 'firebase' }).error?.issues[0]?.message).toBe('firebaseAppId is required for firebase');
    expect(ga4.config.safeParse({ measurementId: 'G-1' }).success).toBe(false);
    expect(ga4.config.safeParse({ apiSecret: 's', measurementId: 'G-1', baseUrl: 'gopher://x' }).success).toBe(false);
    expect(ga4.config.safeParse({ apiSecret: 's', measurementId: 'G-1', typesOfClient: 'ios' }).success).toBe(false);
  });

  it('has no user deletion (the Admin API needs an OAuth service account)', () => {
    expect(ga4.deleteUsers).toBeUndefined();
  });
});
