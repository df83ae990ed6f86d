import { buildRequests } from '../../../shared/destinations';
import { facebookConversions } from '../../support/destination-types';
import { AT_SECONDS, base, CONTEXT, HASHED, ORDER, PRODUCT_ADDED, sha, webConversion } from '../../support/ad-events';
import { expectRefusals, jsonPost } from '../../support/vendor-suite';

/**
 * Meta Conversions API, from developers.facebook.com/documentation/ads-commerce/conversions-api: "Using the API"
 * (POST /{API_VERSION}/{PIXEL_ID}/events?access_token=…, `data` of up to 1,000 events, a batch rejected whole),
 * "Server Event Parameters" (event_name, event_time in Unix seconds, event_id, action_source, event_source_url),
 * "Customer Information Parameters" (hashed em, ph, fn, ln, ge, ct, st, zp, country, external_id; unhashed
 * client_ip_address and client_user_agent), "Custom Data Parameters" and the pixel's standard events.
 */
const config = (extra: Record<string, unknown> = {}) => facebookConversions.config.parse({ pixelId: 'PX1', accessToken: 'TOKEN', ...extra });

const request = (event: Record<string, unknown>, extra: Record<string, unknown> = {}, host = 'https://graph.facebook.com/v25.0') =>
  jsonPost(`${host}/PX1/events`, { 'Content-Type': 'application/json' }, { data: [event], ...extra }, 'a-1', { access_token: 'TOKEN' });

const serverEvent = (fields: Record<string, unknown>) => webConversion('website', fields);

describe('Facebook Conversions API transform', () => {
  it('Order Completed → Purchase with value, currency, content_ids, contents, num_items and order_id (Custom Data Parameters)', () => {
    expect(facebookConversions.transform!(ORDER, config())).toEqual([
      request(
        serverEvent({
          event_name: 'Purchase',
          custom_data: {
            value: 40,
            currency: 'EUR',
            content_ids: ['p-1', 'SKU-2'],
            content_type: 'product',
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

  it('Product Added → AddToCart, Checkout Started → InitiateCheckout, Product Viewed → ViewContent (standard events)', () => {
    const [added] = facebookConversions.transform!(PRODUCT_ADDED, config());
    expect(added!.body.JSON.data).toEqual([
      serverEvent({
        event_name: 'AddToCart',
        custom_data: {
          value: 39.98,
          currency: 'USD',
          content_ids: ['p-1'],
          content_type: 'product',
          contents: [{ id: 'p-1', quantity: 2, item_price: 19.99 }],
          num_items: 2,
        },
      }),
    ]);
    const name = (event: string) =>
      (facebookConversions.transform!({ ...base, type: 'track', event }, config())[0]!.body.JSON.data as { event_name: string }[])[0]!.event_name;
    expect(name('Checkout Started')).toBe('InitiateCheckout');
    expect(name('Product Viewed')).toBe('ViewContent');
    expect(name('Products Searched')).toBe('Search');
    // Any other name is a custom event, sent by its own name.
    expect(name('Trial Started')).toBe('Trial Started');
  });

  it('page → PageView without custom data; the event source URL from the page', () => {
    expect(facebookConversions.transform!({ ...base, type: 'page', name: 'Checkout' }, config())).toEqual([request(serverEvent({ event_name: 'PageView' }))]);
  });

  it('takes the action source, the API version, a test event code, the event map and a base URL from the configuration', () => {
    const cfg = config({
      apiVersion: 'v24.0',
      actionSource: 'physical_store',
      testEventCode: 'TEST123',
      eventMap: [{ from: 'Trial Started', to: 'StartTrial' }],
      baseUrl: 'http://proxy.local:9000/meta/',
    });
    expect(facebookConversions.transform!({ ...base, type: 'track', event: 'Trial Started' }, cfg)).toEqual([
      request(serverEvent({ event_name: 'StartTrial', action_source: 'physical_store' }), { test_event_code: 'TEST123' }, 'http://proxy.local:9000/meta/v24.0'),
    ]);
  });

  it('puts the configured country code before a phone number given without one (Customer Information Parameters: ph)', () => {
    const message = { ...base, type: 'page', context: { ...CONTEXT, traits: { phone: '020 7946 0958' } } };
    const [sent] = facebookConversions.transform!(message, config({ phoneCountryCode: '44' }));
    expect((sent!.body.JSON.data as { user_data: unknown }[])[0]!.user_data).toEqual({
      ph: [sha('442079460958')],
      external_id: [HASHED.external_id],
      client_ip_address: CONTEXT.ip,
      client_user_agent: CONTEXT.userAgent,
    });
    expect(facebookConversions.config.safeParse({ pixelId: 'p', accessToken: 't', phoneCountryCode: '+44' }).error?.issues[0]?.message).toBe(
      'phoneCountryCode must be a country calling code, digits only (e.g. 1 or 44)',
    );
  });

  it('website events need event_source_url and client_user_agent (Server Event Parameters): a server event is "other" unless configured, and a configured website refuses one without them', () => {
    const server = { ...base, type: 'track', event: 'Order Completed', context: { ip: CONTEXT.ip } };
    const [sent] = facebookConversions.transform!(server, config());
    expect((sent!.body.JSON.data as { action_source: string }[])[0]!.action_source).toBe('other');
    expect(buildRequests(facebookConversions, server, config({ actionSource: 'website' }))).toEqual({
      ok: false,
      error:
        'the Meta Conversions API needs event_source_url (context.page.url) and client_user_agent (context.userAgent) for a website event: the event has none',
    });
    const noAgent = { ...base, type: 'page', context: { ...CONTEXT, userAgent: undefined } };
    expect(buildRequests(facebookConversions, noAgent, config({ actionSource: 'website' }))).toMatchObject({
      error: 'the Meta Conversions API needs client_user_agent (context.userAgent) for a website event: the event has none',
    });
    const [app] = facebookConversions.transform!(server, config({ actionSource: 'app' }));
    expect((app!.body.JSON.data as { action_source: string }[])[0]!.action_source).toBe('app');
  });

  it('sends fbc (the _fbc cookie, else fb.1.<event time in ms>.<fbclid> from the landing page URL) and fbp (the _fbp cookie) unhashed (Customer Information Parameters)', () => {
    const userData = (message: Record<string, unknown>) =>
      (facebookConversions.transform!({ ...base, type: 'page', ...message }, config())[0]!.body.JSON.data as { user_data: Record<string, unknown> }[])[0]!
        .user_data;
    const landed = { context: { ...CONTEXT, page: { url: 'https://shop.example/?fbclid=IwAR2abc' } } };
    expect(userData(landed)).toMatchObject({ fbc: `fb.1.${AT_SECONDS * 1000}.IwAR2abc` });
    expect(userData({ context: { ...CONTEXT, fbc: 'fb.1.1700000000000.given', fbp: 'fb.1.1700000000000.42' } })).toMatchObject({
      fbc: 'fb.1.1700000000000.given',
      fbp: 'fb.1.1700000000000.42',
    });
    expect(userData({})).not.toHaveProperty('fbc');
  });

  it('refuses identify, group, alias and screen, naming why (the Conversions API has events only)', () => {
    const cfg = config();
    expectRefusals(facebookConversions, cfg, [
      [
        { ...base, type: 'identify', traits: { email: 'a@b.c' } },
        'the Meta Conversions API takes conversion events only: an identify has no event there (its traits go with later events as hashed customer information)',
      ],
      [{ ...base, type: 'group', groupId: 'g' }, 'the Meta Conversions API takes conversion events only: a group has no event there'],
      [
        { ...base, type: 'alias', previousId: 'x' },
        'the Meta Conversions API takes conversion events only: an alias has no event there (it has no user merge)',
      ],
    ]);
    expect(buildRequests(facebookConversions, { ...base, type: 'screen', name: 'Home' }, cfg)).toMatchObject({ ok: false });
    expect(buildRequests(facebookConversions, { type: 'track', event: 'x', userId: 'u' }, cfg)).toEqual({
      ok: false,
      error: 'the Meta Conversions API needs a messageId (event_id, the key it de-duplicates on)',
    });
  });

  it('batches up to 1,000 events under data; the answer is about the request as a whole: a throttled or transient one parks, one about the token stays whole', () => {
    expect(facebookConversions.batch).toMatchObject({ maxEvents: 1000, lists: ['JSON.data'] });
    expect(facebookConversions.batch!.verdicts).toBeUndefined();
    const throttled = facebookConversions.throttled!;
    // A refusal Meta marks transient, or a throttling code, puts the whole chunk off; any other answer is read by its status.
    expect(throttled({ status: 400, response: { error: { message: 'Calls limit', code: 17 } } })).toBe(true);
    expect(throttled({ status: 400, response: { error: { message: 'x', code: 2, is_transient: true } } })).toBe(true);
    expect(throttled({ status: 400, response: { error: { message: 'Invalid parameter', code: 100 } } })).toBe(false);
    const setup = facebookConversions.batch!.setupRefusal!;
    expect(setup({ status: 400, response: { error: { message: 'Invalid OAuth access token.', code: 190 } } })).toBe(true);
    expect(setup({ status: 400, response: { error: { message: 'Unsupported post request', code: 100, error_subcode: 33 } } })).toBe(true);
    expect(setup({ status: 400, response: { error: { message: 'Invalid parameter', code: 100 } } })).toBe(false);
  });

  it('validates the configuration: pixel id and token required, a known action source, a vN.N version, no unknown keys', () => {
    expect(facebookConversions.config.safeParse({ pixelId: 'p', accessToken: 't' }).success).toBe(true);
    expect(facebookConversions.config.safeParse({ accessToken: 't' }).success).toBe(false);
    expect(facebookConversions.config.safeParse({ pixelId: 'p', accessToken: 't', actionSource: 'web' }).success).toBe(false);
    expect(facebookConversions.config.safeParse({ pixelId: 'p', accessToken: 't', apiVersion: '25' }).success).toBe(false);
    expect(facebookConversions.config.safeParse({ pixelId: 'p', accessToken: 't', baseUrl: 'ftp://x' }).success).toBe(false);
    expect(facebookConversions.config.safeParse({ pixelId: 'p', accessToken: 't', region: 'EU' }).success).toBe(false);
  });
});
