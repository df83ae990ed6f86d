import { buildRequests } from '../../../shared/destinations';
import { tiktokAds } from '../../support/destination-types';
import { AT_SECONDS, base, CONTEXT, HASHED, ORDER, PRODUCT_ADDED, sha } from '../../support/ad-events';
import { expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * TikTok Events API 2.0, from business-api.tiktok.com/portal/docs ("Events API 2.0", "Report web events": POST
 * /open_api/v1.3/event/track/ with the Access-Token header; event_source "web", event_source_id the pixel code,
 * `data` of up to 1,000 events with event, event_time in Unix seconds, event_id, `user` (email, phone and
 * external_id SHA-256 hashed, ip and user_agent as they are), `properties`, `page`; "Supported standard events";
 * the return codes of the Marketing API: 0 OK, 40100 rate limited).
 */
const config = (extra: Record<string, unknown> = {}) => tiktokAds.config.parse({ pixelCode: 'CPIX', accessToken: 'TOKEN', ...extra });

// TikTok hashes phone numbers in E.164, the leading "+" kept.
const USER = { email: HASHED.em, phone: sha('+14155550100'), external_id: HASHED.external_id, ip: CONTEXT.ip, user_agent: CONTEXT.userAgent };
const PAGE = { url: CONTEXT.page.url, referrer: CONTEXT.page.referrer };

const request = (event: Record<string, unknown>, extra: Record<string, unknown> = {}, host = 'https://business-api.tiktok.com') =>
  jsonPost(
    `${host}/open_api/v1.3/event/track/`,
    { 'Content-Type': 'application/json', 'Access-Token': 'TOKEN' },
    { event_source: 'web', event_source_id: 'CPIX', ...extra, data: [event] },
  );

const tiktokEvent = (fields: Record<string, unknown>) => ({ event_time: AT_SECONDS, event_id: 'm-1', user: USER, page: PAGE, ...fields });

describe('TikTok Events API transform (event/track, web)', () => {
  it('Order Completed → CompletePayment with value, currency, contents, order_id; hashed email, phone, external_id', () => {
    expect(tiktokAds.transform!(ORDER, config())).toEqual([
      request(
        tiktokEvent({
          event: 'CompletePayment',
          properties: {
            value: 40,
            currency: 'EUR',
            content_type: 'product',
            contents: [
              { content_id: 'p-1', content_type: 'product', content_name: 'Monitor', price: 19.99, quantity: 2 },
              { content_id: 'SKU-2', content_type: 'product', price: 1.52 },
            ],
            order_id: 'o-9',
          },
        }),
      ),
    ]);
  });

  it('Product Added → AddToCart, Checkout Started → InitiateCheckout, Product Viewed → ViewContent; others by their own name', () => {
    expect(tiktokAds.transform!(PRODUCT_ADDED, config())[0]!.body.JSON.data).toEqual([
      tiktokEvent({
        event: 'AddToCart',
        properties: {
          value: 39.98,
          currency: 'USD',
          content_type: 'product',
          contents: [{ content_id: 'p-1', content_type: 'product', content_name: 'Monitor', price: 19.99, quantity: 2 }],
        },
      }),
    ]);
    const name = (event: string, cfg = config()) =>
      (tiktokAds.transform!({ ...base, type: 'track', event }, cfg)[0]!.body.JSON.data as { event: string }[])[0]!.event;
    expect(name('Checkout Started')).toBe('InitiateCheckout');
    expect(name('Product Viewed')).toBe('ViewContent');
    expect(name('Signed Up')).toBe('CompleteRegistration');
    expect(name('Trial Started')).toBe('Trial Started');
    expect(name('Trial Started', config({ eventMap: [{ from: 'Trial Started', to: 'Subscribe' }] }))).toBe('Subscribe');
  });

  it('page → the pixel page view "Pageview"; an anonymous event carries only what it has', () => {
    expect(tiktokAds.transform!({ ...base, type: 'page' }, config())).toEqual([request(tiktokEvent({ event: 'Pageview' }))]);
    const anonymous = { type: 'track', event: 'Product Viewed', messageId: 'm-2', anonymousId: 'a-2', timestamp: '2026-11-23T10:00:00.000Z' };
    expect(tiktokAds.transform!(anonymous, config())[0]!.body.JSON.data).toEqual([{ event: 'ViewContent', event_time: AT_SECONDS, event_id: 'm-2', user: {} }]);
  });

  it('hashes the phone in E.164, its leading "+" kept: an international number as given, a national one with the configured country code', () => {
    const phoneOf = (phone: string, extra: Record<string, unknown> = {}) =>
      (tiktokAds.transform!({ ...ORDER, context: { traits: { phone } } }, config(extra))[0]!.body.JSON.data as { user: { phone?: string } }[])[0]!.user.phone;
    expect(phoneOf('+44 20 7946 0958')).toBe(sha('+442079460958'));
    expect(phoneOf('0044 20 7946 0958')).toBe(sha('+442079460958'));
    expect(phoneOf('020 7946 0958', { phoneCountryCode: '44' })).toBe(sha('+442079460958'));
    expect(phoneOf('+44 20 7946 0958')).not.toBe(sha('442079460958'));
  });

  it("sends the click id ttclid (context or properties, else the landing page URL's parameter) and the _ttp browser id ttp with the user (Report web events)", () => {
    const userOf = (message: Record<string, unknown>) =>
      (tiktokAds.transform!({ ...base, type: 'page', ...message }, config())[0]!.body.JSON.data as { user: Record<string, unknown> }[])[0]!.user;
    const landed = { context: { ...CONTEXT, page: { url: 'https://shop.example/?utm_source=tt&ttclid=E.C.P.abc' } } };
    expect(userOf(landed)).toMatchObject({ ttclid: 'E.C.P.abc' });
    expect(userOf({ context: { ...CONTEXT, ttclid: 'given', ttp: 'browser-1' } })).toMatchObject({ ttclid: 'given', ttp: 'browser-1' });
    expect(userOf({})).not.toHaveProperty('ttclid');
  });

  it('sends a test event code and uses the base URL where configured', () => {
    const cfg = config({ testEventCode: 'TEST1', baseUrl: 'http://proxy.local:9000/tt/' });
    expect(tiktokAds.transform!({ ...base, type: 'page' }, cfg)).toEqual([
      request(tiktokEvent({ event: 'Pageview' }), { test_event_code: 'TEST1' }, 'http://proxy.local:9000/tt'),
    ]);
  });

  it('refuses identify, group, alias and screen, and an event without a messageId, naming why', () => {
    const cfg = config();
    expectRefusals(tiktokAds, cfg, [
      [
        { ...base, type: 'identify' },
        'the TikTok Events API takes conversion events only: an identify has no event there (its traits go with later events as hashed customer information)',
      ],
      [{ type: 'page', anonymousId: 'a' }, 'the TikTok Events API needs a messageId (event_id, the key it de-duplicates on)'],
    ]);
    for (const type of ['group', 'alias', 'screen']) expect(buildRequests(tiktokAds, { ...base, type }, cfg)).toMatchObject({ ok: false });
  });

  it('batches up to 1,000 events under data; reads the code of a 200: 40100 and 5xxxx retryable, others refused, 0 delivered', () => {
    expect(tiktokAds.batch).toMatchObject({ maxEvents: 1000, lists: ['JSON.data'] });
    const verdicts = tiktokAds.batch!.verdicts!;
    expect(verdicts({ status: 200, response: { code: 0, message: 'OK', request_id: 'r', data: {} } }, 2)).toBeUndefined();
    expect(verdicts({ status: 200, response: { code: 40100, message: 'Too many requests' } }, 2)).toEqual([
      { kind: 'retryable', error: 'TikTok answered code 40100: Too many requests' },
      { kind: 'retryable', error: 'TikTok answered code 40100: Too many requests' },
    ]);
    expect(verdicts({ status: 200, response: { code: 51000, message: 'internal' } }, 1)).toEqual([
      { kind: 'retryable', error: 'TikTok answered code 51000: internal' },
    ]);
    expect(verdicts({ status: 200, response: { code: 40002, message: 'Invalid event_source_id' } }, 1)).toEqual([
      { kind: 'refused', error: 'TikTok answered code 40002: Invalid event_source_id' },
    ]);
    expect(verdicts({ status: 500, response: { code: 50000 } }, 1)).toBeUndefined();
  });

  it('validates the configuration: pixel code and access token required, an http(s) base URL, no unknown keys', () => {
    expect(tiktokAds.config.safeParse({ pixelCode: 'p', accessToken: 't' }).success).toBe(true);
    expect(tiktokAds.config.safeParse({ pixelCode: 'p' }).success).toBe(false);
    expect(tiktokAds.config.safeParse({ accessToken: 't' }).success).toBe(false);
    expect(tiktokAds.config.safeParse({ pixelCode: 'p', accessToken: 't', baseUrl: 'file:///x' }).success).toBe(false);
    expect(tiktokAds.config.safeParse({ pixelCode: 'p', accessToken: 't', eventMap: [{ from: 'a' }] }).success).toBe(false);
    expect(tiktokAds.config.safeParse({ pixelCode: 'p', accessToken: 't', pixelId: 'x' }).success).toBe(false);
  });
});
