import { commerceOf, eventIdOf, networkEventName, refuseNonConversion, unixSeconds, type Commerce } from '../ad-commerce';
import { clientOf, hashedIdentifiers, pageOf } from '../ad-matching';
import { instrumentationError } from '../errors';
import { isRecord, trimBase } from '../message';
import { restRequest } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type DestinationRequest, type Message } from '../types';
import type { SnapchatConfig, snapchatConversionsDefinition } from './definition';

/**
 * Snap Conversions API v3: POST https://tr.snapchat.com/v3/{PIXEL_ID}/events?access_token={TOKEN} with the events
 * in `data`. Docs: developers.snap.com/api/marketing-api/Conversions-API ("Using the API", "Parameters": server
 * data, "User Data Parameters", custom data; "Migration from v2 to v3"), and Snap's v3 API description
 * (Snapchat/business-sdk-v3-java api/openapi.yaml: the EventResponse answer, VALID or INVALID).
 */

// Snap's standard event names for the event spec's ecommerce and lifecycle names.
const STANDARD_EVENTS: Record<string, string> = {
  'Order Completed': 'PURCHASE',
  'Product Added': 'ADD_CART',
  'Checkout Started': 'START_CHECKOUT',
  'Product Viewed': 'VIEW_CONTENT',
  'Products Searched': 'SEARCH',
  'Product Added to Wishlist': 'ADD_TO_WISHLIST',
  'Payment Info Entered': 'ADD_BILLING',
  'Signed Up': 'SIGN_UP',
  'Product List Viewed': 'LIST_VIEW',
};

// Snap takes its standard names and CUSTOM_EVENT_1 to CUSTOM_EVENT_5 only: other names need the event map.
const unmapped = (event: string): never => {
  throw instrumentationError(`"${event}" is not a Snap standard event: map it in eventMap (e.g. to CUSTOM_EVENT_1)`);
};

/** user_data: matching keys as lists of SHA-256 hashes; client_ip_address and client_user_agent unhashed. */
function userData(message: Message, config: SnapchatConfig): Record<string, unknown> {
  const client = clientOf(message);
  return {
    ...Object.fromEntries(Object.entries(hashedIdentifiers(message, config)).map(([key, value]) => [key, [value]])),
    ...(client.ip && { client_ip_address: client.ip }),
    ...(client.userAgent && { client_user_agent: client.userAgent }),
  };
}

/** custom_data: currency, value, content_ids, contents ({id, quantity, item_price}), num_items, order_id, search_string. */
function customData(commerce: Commerce): Record<string, unknown> {
  const withId = commerce.products.filter((p) => p.id !== undefined);
  return {
    ...(commerce.currency && { currency: commerce.currency }),
    ...(commerce.value !== undefined && { value: commerce.value }),
    ...(withId.length > 0 && {
      content_ids: withId.map((p) => p.id),
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

function snapEvent(message: Message, config: SnapchatConfig): Record<string, unknown> {
  let eventName: string;
  if (message.type === 'track') eventName = networkEventName(message, STANDARD_EVENTS, config.eventMap, unmapped);
  else if (message.type === 'page') eventName = 'PAGE_VIEW';
  else refuseNonConversion(message, 'the Snap Conversions API');
  const page = pageOf(message);
  const custom = message.type === 'track' ? customData(commerceOf(message)) : {};
  return {
    event_name: eventName,
    event_time: unixSeconds(message),
    // event_id: Snap de-duplicates a pixel and a server event that share it.
    event_id: eventIdOf(message, 'the Snap Conversions API'),
    action_source: 'WEB',
    ...(page.url && { event_source_url: page.url }),
    user_data: userData(message, config),
    ...(Object.keys(custom).length > 0 && { custom_data: custom }),
  };
}

/**
 * Snap answers a request as a whole (EventResponse: status VALID or INVALID, with a reason): a 2xx that says
 * INVALID refuses every event of it; any other answer is read by its HTTP status.
 */
function snapVerdicts(answer: { status: number; response: unknown }, count: number): ChunkEventVerdict[] | undefined {
  if (answer.status < 200 || answer.status >= 300 || !isRecord(answer.response) || answer.response.status !== 'INVALID') return undefined;
  const error = `Snap answered INVALID: ${String(answer.response.reason ?? JSON.stringify(answer.response.errors ?? ''))}`;
  return Array.from({ length: count }, () => ({ kind: 'refused', error }));
}

export const snapchatConversions = defineDestinationCode<typeof snapchatConversionsDefinition>({
  delivery: 'http',
  // Up to 2,000 events in `data` per request.
  batch: { maxEvents: 2000, maxBytes: 2_000_000, lists: ['JSON.data'], verdicts: snapVerdicts },
  transform(message, config): DestinationRequest[] {
    const base = trimBase(config.baseUrl ?? 'https://tr.snapchat.com');
    return [
      restRequest({
        method: 'POST',
        endpoint: `${base}/v3/${encodeURIComponent(config.pixelId)}/events`,
        headers: { 'Content-Type': 'application/json' },
        params: { access_token: config.accessToken },
        json: { data: [snapEvent(message, config)] },
        userId: message.anonymousId,
      }),
    ];
  },
});
