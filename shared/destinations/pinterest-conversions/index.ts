import { commerceField, conversionEventName, eventIdOf, unixSeconds, type Commerce, type ConversionNames } from '../ad-commerce';
import { listedUserData, pageOf } from '../ad-matching';
import { isRecord, trimBase } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type Message } from '../types';
import type { PinterestConfig, pinterestConversionsDefinition } from './definition';

/**
 * Pinterest API for Conversions: POST /v5/ad_accounts/{ad_account_id}/events with a conversion access token.
 * Docs: the v5 reference "Send conversions" (events/create: the ConversionEvents body, its `user_data` and
 * `custom_data`, the ConversionApiResponse answer, 422 "Not all events were successfully processed"), and
 * developers.pinterest.com/docs/conversions ("Conversion events" names).
 */

const NAMES: ConversionNames = {
  network: 'the Pinterest API for Conversions',
  page: 'page_visit',
  // event_name values for the event spec's ecommerce and lifecycle names; anything else is `custom`.
  standard: {
    'Order Completed': 'checkout',
    'Product Added': 'add_to_cart',
    'Checkout Started': 'initiate_checkout',
    'Product Viewed': 'view_content',
    'Products Searched': 'search',
    'Product Added to Wishlist': 'add_to_wishlist',
    'Payment Info Entered': 'add_payment_info',
    'Signed Up': 'signup',
    'Product Category Viewed': 'view_category',
  },
  fallback: () => 'custom',
};

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
  const page = pageOf(message);
  return {
    event_name: conversionEventName(message, NAMES, config.eventMap),
    action_source: 'web',
    event_time: unixSeconds(message),
    // event_id (required): Pinterest de-duplicates the tag's and the API's events that share it.
    event_id: eventIdOf(message, NAMES.network),
    ...(page.url && { event_source_url: page.url }),
    user_data: listedUserData(message, config),
    ...commerceField(message, 'custom_data', customData),
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
  transform: (message, config) => [
    postJson(
      `${trimBase(config.baseUrl ?? 'https://api.pinterest.com')}/v5/ad_accounts/${encodeURIComponent(config.adAccountId)}/events`,
      { data: [conversionEvent(message, config)] },
      { headers: { Authorization: `Bearer ${config.conversionToken}` }, userId: message.anonymousId },
    ),
  ],
});
