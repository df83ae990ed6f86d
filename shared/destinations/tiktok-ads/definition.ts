import * as z from 'zod';
import { baseUrl, EventMap, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const TikTokConfig = z.strictObject({
  pixelCode: z.string().min(1, 'pixelCode is required').describe('the pixel code, sent as event_source_id'),
  accessToken: secret(z.string().min(1, 'accessToken is required').describe('the Events API access token of the pixel')),
  testEventCode: z.string().optional().describe('sends to Test Events instead of counting the events'),
  eventMap: EventMap,
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('replaces https://business-api.tiktok.com (proxies, tests)'),
});
export type TikTokConfig = z.output<typeof TikTokConfig>;

/** TikTok Events API as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const tiktokAdsDefinition = defineDefinition({
  name: 'TIKTOK_ADS',
  displayName: 'TikTok Events API',
  config: TikTokConfig,
  supportsTest: true,
  supportsDeletion: false,
});
