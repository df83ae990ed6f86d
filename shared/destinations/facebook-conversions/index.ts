import { DAY_MS } from '../age-window';
import { PIXEL_STANDARD_EVENTS, commerceField, conversionEventName, eventIdOf, unixSeconds, type Commerce, type ConversionNames } from '../ad-commerce';
import { clickIdOf, clientOf, listedUserData, pageOf } from '../ad-matching';
import { instrumentationError } from '../errors';
import { isRecord, trimBase } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type Message } from '../types';
import type { FacebookConversionsConfig, facebookConversionsDefinition } from './definition';

/**
 * Meta (Facebook) Conversions API: server events through the Graph API's `/{pixel_id}/events` edge. Docs:
 * developers.facebook.com/documentation/ads-commerce/conversions-api ("Using the API", "Parameters": "Server
 * Event Parameters", "Customer Information Parameters", "Custom Data Parameters"; "Standard events" of the
 * Meta Pixel reference), and the Graph API "Ads Pixel Events" reference (its answer, test_event_code).
 */

const DEFAULT_VERSION = 'v25.0';

const NAMES: ConversionNames = {
  network: 'the Meta Conversions API',
  page: 'PageView',
  standard: PIXEL_STANDARD_EVENTS,
  fallback: (event) => event,
};

/** Customer Information Parameters: hashed matching keys as lists, the browser's address and agent unhashed. */
function userData(message: Message, config: FacebookConversionsConfig): Record<string, unknown> {
  // "Customer Information Parameters": fbc, the click id as `fb.1.<creation time in ms>.<fbclid>` (the _fbc cookie,
  // else made from the landing page's fbclid at the event's time), and fbp, the browser id (the _fbp cookie).
  const fbclid = clickIdOf(message, 'fbclid', 'fbclid');
  const fbc = clickIdOf(message, 'fbc') ?? (fbclid && `fb.1.${unixSeconds(message) * 1000}.${fbclid}`);
  const fbp = clickIdOf(message, 'fbp');
  return { ...listedUserData(message, config), ...(fbc && { fbc }), ...(fbp && { fbp }) };
}

/** Custom Data Parameters: value, currency, content_ids, contents ({id, quantity, item_price}), num_items, order_id. */
function customData(commerce: Commerce): Record<string, unknown> {
  const withId = commerce.products.filter((p) => p.id !== undefined);
  return {
    ...(commerce.value !== undefined && { value: commerce.value }),
    ...(commerce.currency && { currency: commerce.currency }),
    ...(withId.length > 0 && {
      content_ids: withId.map((p) => p.id),
      content_type: 'product',
      contents: withId.map((p) => ({
        id: p.id,
        ...(p.quantity !== undefined && { quantity: p.quantity }),
        ...(p.price !== undefined && { item_price: p.price }),
      })),
    }),
    ...(commerce.numItems !== undefined && { num_items: commerce.numItems }),
    ...(commerce.orderId && { order_id: commerce.orderId }),
    ...(commerce.query && { search_string: commerce.query }),
  };
}

/**
 * "Server Event Parameters": event_source_url and client_user_agent are "required for website events", and Meta
 * refuses the whole request when one lacks them. A configured `website` therefore refuses such an event alone,
 * naming what it lacks; without a configured source, an event from a browser (page URL and user agent) is a
 * website event and any other, sent from a server, `other`.
 */
function actionSource(message: Message, config: FacebookConversionsConfig, url: string | undefined): string {
  const missing = [!url && 'event_source_url (context.page.url)', !clientOf(message).userAgent && 'client_user_agent (context.userAgent)'].filter(Boolean);
  if (config.actionSource === undefined) return missing.length === 0 ? 'website' : 'other';
  if (config.actionSource === 'website' && missing.length > 0) {
    throw instrumentationError(`the Meta Conversions API needs ${missing.join(' and ')} for a website event: the event has none`);
  }
  return config.actionSource;
}

/** One server event (Server Event Parameters): name, time, event_id = messageId, action_source, user and custom data. */
function serverEvent(message: Message, config: FacebookConversionsConfig): Record<string, unknown> {
  const page = pageOf(message);
  return {
    event_name: conversionEventName(message, NAMES, config.eventMap),
    event_time: unixSeconds(message),
    // event_id with event_name: Meta keeps one of a browser and a server event with the same pair (48 hours).
    event_id: eventIdOf(message, NAMES.network),
    action_source: actionSource(message, config, page.url),
    ...(page.url && { event_source_url: page.url }),
    user_data: userData(message, config),
    ...commerceField(message, 'custom_data', customData),
  };
}

/** The Graph API error of an answer (`{error: {message, code, error_subcode, is_transient}}`), or an empty one. */
const graphError = (answer: { response: unknown }): Record<string, unknown> =>
  isRecord(answer.response) && isRecord(answer.response.error) ? answer.response.error : {};

/** Graph API errors Meta marks transient, or its throttling codes (4, 17, 32, 613, 80004): worth sending again. */
const THROTTLING = new Set([4, 17, 32, 613, 80004]);

/**
 * Meta answers a request as a whole ("If any event you send in a batch is invalid, we reject the entire
 * batch"): its answer never names events. A refusal it marks transient or throttled parks the chunk, whatever its
 * status (DestinationType.throttled), rather than aborting it.
 */
const facebookThrottled = (answer: { response: unknown }): boolean => {
  const error = graphError(answer);
  return error.is_transient === true || THROTTLING.has(Number(error.code));
};

/**
 * Graph API answers about the token or the pixel rather than the events (Graph API "Handling Errors": 190
 * access token, 102 session, 10 and 200–299 permissions; subcode 33, the object does not exist): such a refusal
 * stays whole, where any other 400 is split to find the event Meta refuses.
 */
function facebookSetupRefusal(answer: { response: unknown }): boolean {
  const { code, error_subcode } = graphError(answer);
  return [10, 102, 190].includes(Number(code)) || (Number(code) >= 200 && Number(code) < 300) || Number(error_subcode) === 33;
}

export const facebookConversions = defineDestinationCode<typeof facebookConversionsDefinition>({
  delivery: 'http',
  // Using the API, "Batch Requests": up to 1,000 events in `data`.
  batch: { maxEvents: 1000, maxBytes: 2_000_000, lists: ['JSON.data'], setupRefusal: facebookSetupRefusal },
  throttled: facebookThrottled,
  // "Server Event Parameters", event_time (developers.facebook.com/docs/marketing-api/conversions-api/parameters/
  // server-event, read 2026-11-29): "can be up to 7 days before you send an event … If any event_time in data is
  // greater than 7 days in the past, we return an error for the entire request and process no events." "Using
  // the API": physical_store events may be uploaded "within 62 days of the conversion".
  ageWindow: (_message, config) => {
    const store = config.actionSource === 'physical_store';
    return { vendor: 'Facebook', maxAgeMs: (store ? 62 : 7) * DAY_MS, maxAge: store ? '62 days for physical store events' : '7 days' };
  },
  transform: (message, config) => [
    postJson(
      `${trimBase(config.baseUrl ?? 'https://graph.facebook.com')}/${config.apiVersion ?? DEFAULT_VERSION}/${encodeURIComponent(config.pixelId)}/events`,
      { data: [serverEvent(message, config)], ...(config.testEventCode && { test_event_code: config.testEventCode }) },
      { params: { access_token: config.accessToken }, userId: message.anonymousId },
    ),
  ],
});
