import { buildRequests } from '../../../shared/destinations';
import { snapchatConversions } from '../../support/destination-types';
import { base, ORDER, PRODUCT_ADDED, webConversion } from '../../support/ad-events';
import { expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Snap Conversions API v3, from developers.snap.com/api/marketing-api/Conversions-API ("Using the API": POST
 * https://tr.snapchat.com/v3/{PIXEL_ID}/events?access_token={TOKEN}, `data` of events; "Parameters": event_name,
 * event_time, event_id, action_source WEB, event_source_url, user_data with hashed em, ph, fn, ln, ge, ct, st,
 * zp, country, external_id and unhashed client_ip_address, client_user_agent; custom_data; "Migration from v2 to
 * v3": the standard names PURCHASE, ADD_CART, …) and Snap's v3 API description (EventResponse VALID or INVALID).
 */
const config = (extra: Record<string, unknown> = {}) => snapchatConversions.config.parse({ pixelId: 'PIX-1', accessToken: 'TOKEN', ...extra });

const request = (event: Record<string, unknown>, host = 'https://tr.snapchat.com') =>
  jsonPost(`${host}/v3/PIX-1/events`, { 'Content-Type': 'application/json' }, { data: [event] }, 'a-1', { access_token: 'TOKEN' });

const snapEvent = (fields: Record<string, unknown>) => webConversion('WEB', fields);

describe('Snapchat Conversions API transform (v3 events)', () => {
  it('Order Completed → PURCHASE with currency, value, content_ids, contents, num_items and order_id', () => {
    expect(snapchatConversions.transform!(ORDER, config())).toEqual([
      request(
        snapEvent({
          event_name: 'PURCHASE',
          custom_data: {
            currency: 'EUR',
            value: 40,
            content_ids: ['p-1', 'SKU-2'],
            contents: [
              { id: 'p-1', quantity: 2, item_price: 19.99 },
              { id: 'SKU-2', item_price: 1.52 },
            ],
            num_items: 3,
            order_id: 'o-9',
          },
        }),
      ),
    ]);
  });

  it('Product Added → ADD_CART, Checkout Started → START_CHECKOUT, Product Viewed → VIEW_CONTENT; page → PAGE_VIEW', () => {
    expect(snapchatConversions.transform!(PRODUCT_ADDED, config())[0]!.body.JSON.data).toEqual([
      snapEvent({
        event_name: 'ADD_CART',
        custom_data: { currency: 'USD', value: 39.98, content_ids: ['p-1'], contents: [{ id: 'p-1', quantity: 2, item_price: 19.99 }], num_items: 2 },
      }),
    ]);
    const name = (event: string, cfg = config()) =>
      (snapchatConversions.transform!({ ...base, type: 'track', event }, cfg)[0]!.body.JSON.data as { event_name: string }[])[0]!.event_name;
    expect(name('Checkout Started')).toBe('START_CHECKOUT');
    expect(name('Product Viewed')).toBe('VIEW_CONTENT');
    expect(name('Signed Up')).toBe('SIGN_UP');
    expect(name('Trial Started', config({ eventMap: [{ from: 'Trial Started', to: 'START_TRIAL' }] }))).toBe('START_TRIAL');
    expect(snapchatConversions.transform!({ ...base, type: 'page' }, config({ baseUrl: 'http://proxy.local:9000/snap/' }))).toEqual([
      request(snapEvent({ event_name: 'PAGE_VIEW' }), 'http://proxy.local:9000/snap'),
    ]);
  });

  it('refuses a track name Snap has no standard event for (until mapped), and identify, group, alias and screen', () => {
    const cfg = config();
    expectRefusals(snapchatConversions, cfg, [
      [{ ...base, type: 'track', event: 'Trial Started' }, '"Trial Started" is not a Snap standard event: map it in eventMap (e.g. to CUSTOM_EVENT_1)'],
      [{ ...base, type: 'group', groupId: 'g' }, 'the Snap Conversions API takes conversion events only: a group has no event there'],
    ]);
    for (const type of ['identify', 'alias', 'screen']) expect(buildRequests(snapchatConversions, { ...base, type }, cfg)).toMatchObject({ ok: false });
  });

  it('batches up to 2,000 events under data; a 2xx that says INVALID refuses the whole request', () => {
    expect(snapchatConversions.batch).toMatchObject({ maxEvents: 2000, lists: ['JSON.data'] });
    const verdicts = snapchatConversions.batch!.verdicts!;
    expect(verdicts({ status: 200, response: { status: 'VALID', reason: 'SUCCESS' } }, 2)).toBeUndefined();
    expect(verdicts({ status: 200, response: { status: 'INVALID', reason: 'Unhashed PII' } }, 2)).toEqual([
      { kind: 'refused', error: 'Snap answered INVALID: Unhashed PII' },
      { kind: 'refused', error: 'Snap answered INVALID: Unhashed PII' },
    ]);
    expect(verdicts({ status: 400, response: { status: 'INVALID', reason: 'x' } }, 2)).toBeUndefined();
  });

  it('validates the configuration: pixel id and access token required, an http(s) base URL, no unknown keys', () => {
    expect(snapchatConversions.config.safeParse({ pixelId: 'p', accessToken: 't' }).success).toBe(true);
    expect(snapchatConversions.config.safeParse({ pixelId: 'p' }).success).toBe(false);
    expect(snapchatConversions.config.safeParse({ accessToken: 't' }).success).toBe(false);
    expect(snapchatConversions.config.safeParse({ pixelId: 'p', accessToken: 't', baseUrl: 'ws://x' }).success).toBe(false);
    expect(snapchatConversions.config.safeParse({ pixelId: 'p', accessToken: 't', snapAppId: 'x' }).success).toBe(false);
  });
});
