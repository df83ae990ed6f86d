import { commerceOf, eventIdOf, networkEventName, refuseNonConversion, unixSeconds, type Commerce } from '../ad-commerce';
import { clientOf, hashedIdentifiers, pageOf } from '../ad-matching';
import { isRecord, trimBase } from '../message';
import { restRequest } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type DestinationRequest, type Message } from '../types';
import type { PinterestConfig, pinterestConversionsDefinition } from './definition';

/**
 * Pinterest API for Conversions: POST /v5/ad_accounts/{ad_account_id}/events with a conversion access token.
 * Docs: the v5 reference "Send conversions" (events/create: the ConversionEvents body, its `user_data` and
 * `custom_data`, the ConversionApiResponse answer, 422 "Not all events were successfully processed"), and
 * developers.pinterest.com/docs/conversions ("Conversion events" names).
 */

// event_name values for the event spec's ecommerce and lifecycle names; anything else is `custom`.
const STANDARD_EVENTS: Record<string, string> = {
  'Order Completed': 'checkout',
  'Product Added': 'add_to_cart',
  'Checkout Started': 'initiate_checkout',
  'Product Viewed': 'view_content',
  'Products Searched': 'search',
  'Product Added to Wishlist': 'add_to_wishlist',
  'Payment Info Entered': 'add_payment_info',
  'Signed Up': 'signup',
  'Product Category Viewed': 'view_category',
};

/** user_data: every matching key a list of SHA-256 hashes; client_ip_address and client_user_agent unhashed. */
function userData(message: Message, config: PinterestConfig): Record<string, unknown> {
  const client = clientOf(message);
  return {
    ...Object.fromEntries(Object.entries(hashedIdentifiers(message, config)).map(([key, value]) => [key, [value]])),
    ...(client.ip && { client_ip_address: client.ip }),
    ...(client.userAgent && { client_user_agent: client.userAgent }),
  };
}

/** custom_data: value and item_price are strings ("parsed into a double"), quantities and num_items integers. */
function customData(commerce: Commerce): Record<string, unknown> {
  const withId = commerce.products.filter((p) => p.id !== undefined);
  return {
    ...(commerce.currency && { currency: commerce.currency }),
    ...(commerce.value !== undefined && { value: String(commerce.value) }),
    ...(withId.length > 0 && {
      content_ids: withId.map((p) => p.id),
      contents: withId.map((p) => ({
        id: p.id,
        ...(p.price !== undefined && { item_price: String(p.price) }),
        ...(p.quantity !== undefined && { quantity: Math.round(p.quantity) }),
        ...(p.name && { item_name: p.name }),
        ...(p.category && { item_category: p.category }),
        ...(p.brand && { item_brand: p.brand }),
      })),
    }),
    ...(commerce.numItems !== undefined && { num_items: Math.round(commerce.numItems) }),
    ...(commerce.orderId && { order_id: commerce.orderId }),
    ...(commerce.query && { search_string: commerce.query }),
  };
}

function conversionEvent(message: Message, config: PinterestConfig): Record<string, unknown> {
  let eventName: string;
  if (message.type === 'track') eventName = networkEventName(message, STANDARD_EVENTS, config.eventMap, () => 'custom');
  else if (message.type === 'page') eventName = 'page_visit';
  else refuseNonConversion(message, 'the Pinterest API for Conversions');
  const page = pageOf(message);
  const custom = message.type === 'track' ? customData(commerceOf(message)) : {};
  return {
    event_name: eventName,
    action_source: 'web',
    event_time: unixSeconds(message),
    // event_id (required): Pinterest de-duplicates the tag's and the API's events that share it.
    event_id: eventIdOf(message, 'the Pinterest API for Conversions'),
    ...(page.url && { event_source_url: page.url }),
    user_data: userData(message, config),
    ...(Object.keys(custom).length > 0 && { custom_data: custom }),
  };
}

/**
 * The answer names every event: `events`, in the order sent, each `processed` or `failed` with an
 * error_message. A 200 has them all processed; a 422 ("Not all events were successfully processed") lists
 * those it failed, which are refused while the others are delivered.
 */
function pinterestVerdicts(answer: { status: number; response: unknown }, count: number): ChunkEventVerdict[] | undefined {
  if (answer.status !== 200 && answer.status !== 422) return undefined;
  const events = isRecord(answer.response) ? answer.response.events : undefined;
  if (!Array.isArray(events) || events.length !== count) return undefined;
  return events.map((event) => {
    const entry = isRecord(event) ? event : {};
    if (entry.status === 'processed') return { kind: 'delivered' };
    return { kind: 'refused', error: `Pinterest failed the event: ${String(entry.error_message ?? 'no reason given')}` };
  });
}

export const pinterestConversions = defineDestinationCode<typeof pinterestConversionsDefinition>({
  delivery: 'http',
  // ConversionEvents: `data` holds 1 to 1,000 events.
  batch: { maxEvents: 1000, maxBytes: 2_000_000, lists: ['JSON.data'], verdicts: pinterestVerdicts },
  transform(message, config): DestinationRequest[] {
    const base = trimBase(config.baseUrl ?? 'https://api.pinterest.com');
    return [
      restRequest({
        method: 'POST',
        endpoint: `${base}/v5/ad_accounts/${encodeURIComponent(config.adAccountId)}/events`,
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${config.conversionToken}` },
        json: { data: [conversionEvent(message, config)] },
        userId: message.anonymousId,
      }),
    ];
  },
});
