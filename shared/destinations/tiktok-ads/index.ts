import { PIXEL_STANDARD_EVENTS, commerceField, conversionEventName, eventIdOf, unixSeconds, type Commerce, type ConversionNames } from '../ad-commerce';
import { clickIdOf, clientOf, hashedIdentifiers, pageOf } from '../ad-matching';
import { isRecord, trimBase } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type Message } from '../types';
import type { TikTokConfig, tiktokAdsDefinition } from './definition';

/**
 * TikTok Events API 2.0 for web events: POST /open_api/v1.3/event/track/ with `event_source: web`, the pixel
 * code as `event_source_id` and the events in `data`. Docs: business-api.tiktok.com/portal/docs, "Events API
 * 2.0" ("Report web events", its parameters `event`, `event_time`, `event_id`, `user`, `properties`, `page`;
 * "Supported standard events"), and the Marketing API's return codes.
 */

const NAMES: ConversionNames = {
  network: 'the TikTok Events API',
  // A page is the pixel's page view ("Pageview", what ttq.page() reports), so the two de-duplicate.
  page: 'Pageview',
  // Supported standard events: the Meta Pixel's names, but CompletePayment for a purchase.
  standard: { ...PIXEL_STANDARD_EVENTS, 'Order Completed': 'CompletePayment' },
  fallback: (name) => name,
};

/**
 * `user`: email, phone and external_id SHA-256 hashed; ip and user_agent as they are. TikTok matches phone numbers
 * in E.164, its leading "+" kept before hashing (the pixel's Advanced Matching asks for `phone_number` in E.164;
 * Segment's TikTok Conversions formatter hashes `+<digits>` the same way): the digits alone never match.
 */
function userOf(message: Message, config: TikTokConfig): Record<string, unknown> {
  const hashed = hashedIdentifiers(message, { ...config, phoneFormat: 'e164' });
  const client = clientOf(message);
  const ttclid = clickIdOf(message, 'ttclid', 'ttclid');
  const ttp = clickIdOf(message, 'ttp');
  return {
    ...(hashed.em && { email: hashed.em }),
    ...(hashed.ph && { phone: hashed.ph }),
    ...(hashed.external_id && { external_id: hashed.external_id }),
    ...(client.ip && { ip: client.ip }),
    ...(client.userAgent && { user_agent: client.userAgent }),
    // "Report web events", user: ttclid, the click id (context or properties, else the landing page's ttclid
    // parameter), and ttp, the _ttp cookie's browser id.
    ...(ttclid && { ttclid }),
    ...(ttp && { ttp }),
  };
}

/** `properties`: value, currency, contents ({content_id, content_type, content_name, price, quantity}), order_id, query. */
function propertiesFor(commerce: Commerce): Record<string, unknown> {
  const withId = commerce.products.filter((p) => p.id !== undefined);
  return {
    ...(commerce.value !== undefined && { value: commerce.value }),
    ...(commerce.currency && { currency: commerce.currency }),
    ...(withId.length > 0 && {
      content_type: 'product',
      contents: withId.map((p) => ({
        content_id: p.id,
        content_type: 'product',
        ...(p.name && { content_name: p.name }),
        ...(p.price !== undefined && { price: p.price }),
        ...(p.quantity !== undefined && { quantity: p.quantity }),
      })),
    }),
    ...(commerce.orderId && { order_id: commerce.orderId }),
    ...(commerce.query && { query: commerce.query }),
  };
}

function tiktokEvent(message: Message, config: TikTokConfig): Record<string, unknown> {
  const page = pageOf(message);
  return {
    event: conversionEventName(message, NAMES, config.eventMap),
    event_time: unixSeconds(message),
    // event_id: TikTok keeps one of a pixel and a server event with the same event and event_id (48 hours).
    event_id: eventIdOf(message, NAMES.network),
    user: userOf(message, config),
    ...commerceField(message, 'properties', propertiesFor),
    ...(Object.keys(page).length > 0 && { page }),
  };
}

/**
 * TikTok answers HTTP 200 with a `code`: 0 accepted, 40100 rate limited, 5xxxx its own failure, any other a
 * refusal of the request. The answer is about the request as a whole (it names no events), so every event of
 * the chunk gets the same verdict.
 */
function tiktokVerdicts(answer: { status: number; response: unknown }, count: number): ChunkEventVerdict[] | undefined {
  if (answer.status < 200 || answer.status >= 300 || !isRecord(answer.response)) return undefined;
  const code = Number(answer.response.code);
  if (!Number.isInteger(code) || code === 0) return undefined;
  const error = `TikTok answered code ${code}: ${String(answer.response.message ?? '')}`;
  const verdict: ChunkEventVerdict = code === 40100 || code >= 50000 ? { kind: 'retryable', error } : { kind: 'refused', error };
  return Array.from({ length: count }, () => verdict);
}

export const tiktokAds = defineDestinationCode<typeof tiktokAdsDefinition>({
  delivery: 'http',
  // Events API 2.0: up to 1,000 events in `data` per request.
  batch: { maxEvents: 1000, maxBytes: 2_000_000, lists: ['JSON.data'], verdicts: tiktokVerdicts },
  transform: (message, config) => [
    postJson(
      `${trimBase(config.baseUrl ?? 'https://business-api.tiktok.com')}/open_api/v1.3/event/track/`,
      {
        event_source: 'web',
        event_source_id: config.pixelCode,
        ...(config.testEventCode && { test_event_code: config.testEventCode }),
        data: [tiktokEvent(message, config)],
      },
      { headers: { 'Access-Token': config.accessToken }, userId: message.anonymousId },
    ),
  ],
});
