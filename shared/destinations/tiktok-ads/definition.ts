import * as z from 'zod';
import { baseUrl, eventMap, field, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const TikTokConfig = z.strictObject({
  pixelCode: field(z.string().min(1, 'pixelCode is required'), {
    label: 'Pixel Code',
    description: 'The pixel code, sent as event_source_id',
    example: 'CXXXXXXXXXXXXXXXXXXX',
  }),
  accessToken: field(secret(z.string().min(1, 'accessToken is required')), { label: 'Access Token', description: 'The Events API access token of the pixel' }),
  testEventCode: field(z.string().optional(), {
    label: 'Test event code',
    description: 'Sends to Test Events instead of counting the events',
    example: 'TEST12345',
  }),
  eventMap: eventMap('CompletePayment'),
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('Replaces https://business-api.tiktok.com (proxies, tests)'),
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
