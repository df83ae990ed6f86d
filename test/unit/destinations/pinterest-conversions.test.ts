import { buildRequests } from '../../../shared/destinations';
import { pinterestConversions } from '../../support/destination-types';
import { base, ORDER, PRODUCT_ADDED, webConversion } from '../../support/ad-events';
import { expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Pinterest API for Conversions, from the v5 reference "Send conversions" (POST /v5/ad_accounts/{ad_account_id}/events,
 * Bearer conversion token; ConversionEvents: `data` of 1 to 1,000 events with event_name, action_source, event_time
 * in Unix seconds, event_id, event_source_url, user_data (lists of SHA-256 hashes: em, ph, fn, ln, ge, ct, st, zp,
 * country, external_id; client_ip_address and client_user_agent unhashed), custom_data (value and item_price as
 * strings); ConversionApiResponse `events[]` with `processed` or `failed`; 422 "Not all events were successfully
 * processed") and developers.pinterest.com/docs/conversions (event names).
 */
const config = (extra: Record<string, unknown> = {}) => pinterestConversions.config.parse({ adAccountId: '549755885175', conversionToken: 'TOKEN', ...extra });

const request = (event: Record<string, unknown>, host = 'https://api.pinterest.com') =>
  jsonPost(`${host}/v5/ad_accounts/549755885175/events`, { 'Content-Type': 'application/json', Authorization: 'Bearer TOKEN' }, { data: [event] });

const conversion = (fields: Record<string, unknown>) => webConversion('web', fields);

describe('Pinterest Conversions API transform (ad_accounts/{id}/events)', () => {
  it('Order Completed → checkout, value and item prices as strings, quantities, num_items, order_id', () => {
    expect(pinterestConversions.transform!(ORDER, config())).toEqual([
      request(
        conversion({
          event_name: 'checkout',
          custom_data: {
            currency: 'EUR',
            value: '40',
            content_ids: ['p-1', 'SKU-2'],
            contents: [
              { id: 'p-1', item_price: '19.99', quantity: 2, item_name: 'Monitor', item_category: 'Screens', item_brand: 'Acme' },
              { id: 'SKU-2', item_price: '1.52' },
            ],
            num_items: 3,
            order_id: 'o-9',
          },
        }),
      ),
    ]);
  });

  it('Product Added → add_to_cart, Checkout Started → initiate_checkout, Product Viewed → view_content; others custom', () => {
    expect(pinterestConversions.transform!(PRODUCT_ADDED, config())[0]!.body.JSON.data).toEqual([
      conversion({
        event_name: 'add_to_cart',
        custom_data: {
          currency: 'USD',
          value: '39.98',
          content_ids: ['p-1'],
          contents: [{ id: 'p-1', item_price: '19.99', quantity: 2, item_name: 'Monitor' }],
          num_items: 2,
        },
      }),
    ]);
    const name = (event: string, cfg = config()) =>
      (pinterestConversions.transform!({ ...base, type: 'track', event }, cfg)[0]!.body.JSON.data as { event_name: string }[])[0]!.event_name;
    expect(name('Checkout Started')).toBe('initiate_checkout');
    expect(name('Product Viewed')).toBe('view_content');
    expect(name('Products Searched')).toBe('search');
    expect(name('Signed Up')).toBe('signup');
    expect(name('Trial Started')).toBe('custom');
    expect(name('Trial Started', config({ eventMap: [{ from: 'Trial Started', to: 'lead' }] }))).toBe('lead');
  });

  it('page → page_visit; the base URL where configured', () => {
    expect(pinterestConversions.transform!({ ...base, type: 'page' }, config({ baseUrl: 'http://proxy.local:9000/pin/' }))).toEqual([
      request(conversion({ event_name: 'page_visit' }), 'http://proxy.local:9000/pin'),
    ]);
  });

  it('refuses identify, group, alias and screen, and an event without a messageId, naming why', () => {
    const cfg = config();
    expectRefusals(pinterestConversions, cfg, [
      [
        { ...base, type: 'alias', previousId: 'x' },
        'the Pinterest API for Conversions takes conversion events only: an alias has no event there (it has no user merge)',
      ],
      [{ type: 'page', userId: 'u' }, 'the Pinterest API for Conversions needs a messageId (event_id, the key it de-duplicates on)'],
    ]);
    for (const type of ['identify', 'group', 'screen']) expect(buildRequests(pinterestConversions, { ...base, type }, cfg)).toMatchObject({ ok: false });
  });

  it('reads the per-event statuses of a 200 or 422: failed events refused with their message, processed ones delivered', () => {
    expect(pinterestConversions.batch).toMatchObject({ maxEvents: 1000, lists: ['JSON.data'] });
    const verdicts = pinterestConversions.batch!.verdicts!;
    const answer = {
      num_events_received: 3,
      num_events_processed: 2,
      events: [
        { status: 'processed', error_message: '', warning_message: '' },
        { status: 'failed', error_message: 'event_time is too far in the past', warning_message: '' },
        { status: 'processed', warning_message: 'custom_data.currency is not standard' },
      ],
    };
    expect(verdicts({ status: 422, response: answer }, 3)).toEqual([
      { kind: 'delivered' },
      { kind: 'refused', error: 'Pinterest failed the event: event_time is too far in the past' },
      { kind: 'delivered' },
    ]);
    expect(verdicts({ status: 200, response: { ...answer, events: answer.events.map(() => ({ status: 'processed' })) } }, 3)).toEqual([
      { kind: 'delivered' },
      { kind: 'delivered' },
      { kind: 'delivered' },
    ]);
    // Statuses that do not line up with the chunk, or another answer, are about the request as a whole.
    expect(verdicts({ status: 422, response: { code: 1, message: 'x', details: {} } }, 3)).toBeUndefined();
    expect(verdicts({ status: 200, response: answer }, 2)).toBeUndefined();
    expect(verdicts({ status: 429, response: { code: 8, message: 'rate limit' } }, 3)).toBeUndefined();
  });

  it('validates the configuration: ad account and conversion token required, an http(s) base URL, no unknown keys', () => {
    expect(pinterestConversions.config.safeParse({ adAccountId: '1', conversionToken: 't' }).success).toBe(true);
    expect(pinterestConversions.config.safeParse({ adAccountId: '1' }).success).toBe(false);
    expect(pinterestConversions.config.safeParse({ conversionToken: 't' }).success).toBe(false);
    expect(pinterestConversions.config.safeParse({ adAccountId: '1', conversionToken: 't', baseUrl: 'x' }).success).toBe(false);
    expect(pinterestConversions.config.safeParse({ adAccountId: '1', conversionToken: 't', tagId: 'x' }).success).toBe(false);
  });
});
