import { commerceField, conversionEventName, eventIdOf, unixSeconds, type Commerce, type ConversionNames } from '../ad-commerce';
import { listedUserData, pageOf } from '../ad-matching';
import { instrumentationError } from '../errors';
import { isRecord, trimBase } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type Message } from '../types';
import type { SnapchatConfig, snapchatConversionsDefinition } from './definition';

/**
 * Snap Conversions API v3: POST https://tr.snapchat.com/v3/{PIXEL_ID}/events?access_token={TOKEN} with the events
 * in `data`. Docs: developers.snap.com/api/marketing-api/Conversions-API ("Using the API", "Parameters": server
 * data, "User Data Parameters", custom data; "Migration from v2 to v3"), and Snap's v3 API description
 * (Snapchat/business-sdk-v3-java api/openapi.yaml: the EventResponse answer, VALID or INVALID).
 */

const NAMES: ConversionNames = {
  network: 'the Snap Conversions API',
  page: 'PAGE_VIEW',
  // Snap's standard event names for the event spec's ecommerce and lifecycle names.
  standard: {
    'Order Completed': 'PURCHASE',
    'Product Added': 'ADD_CART',
    'Checkout Started': 'START_CHECKOUT',
    'Product Viewed': 'VIEW_CONTENT',
    'Products Searched': 'SEARCH',
    'Product Added to Wishlist': 'ADD_TO_WISHLIST',
    'Payment Info Entered': 'ADD_BILLING',
    'Signed Up': 'SIGN_UP',
    'Product List Viewed': 'LIST_VIEW',
  },
  // Snap takes its standard names and CUSTOM_EVENT_1 to CUSTOM_EVENT_5 only: other names need the event map.
  fallback: (event) => {
    throw instrumentationError(`"${event}" is not a Snap standard event: map it in eventMap (e.g. to CUSTOM_EVENT_1)`);
  },
};

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
  const page = pageOf(message);
  return {
    event_name: conversionEventName(message, NAMES, config.eventMap),
    event_time: unixSeconds(message),
    // event_id: Snap de-duplicates a pixel and a server event that share it.
    event_id: eventIdOf(message, NAMES.network),
    action_source: 'WEB',
    ...(page.url && { event_source_url: page.url }),
    user_data: listedUserData(message, config),
    ...commerceField(message, 'custom_data', customData),
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
  transform: (message, config) => [
    postJson(
      `${trimBase(config.baseUrl ?? 'https://tr.snapchat.com')}/v3/${encodeURIComponent(config.pixelId)}/events`,
      { data: [snapEvent(message, config)] },
      { params: { access_token: config.accessToken }, userId: message.anonymousId },
    ),
  ],
});
