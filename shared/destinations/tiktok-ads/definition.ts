import * as z from 'zod';
import { adNetworkConfig, adNetworkTexts, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const TikTokConfig = z.strictObject({
  pixelCode: z.string().min(1, 'pixelCode is required'),
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  testEventCode: z.string().optional(),
  ...adNetworkConfig(),
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

/** What TikTok Events API's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const tiktokAdsFields: FieldTexts<typeof TikTokConfig> = /* @__PURE__ */ adNetworkTexts(
  {
    pixelCode: { label: 'Pixel Code', description: 'The pixel code, sent as event_source_id', example: 'CXXXXXXXXXXXXXXXXXXX' },
    accessToken: { label: 'Access Token', description: 'The Events API access token of the pixel' },
    testEventCode: { label: 'Test event code', description: 'Sends to Test Events instead of counting the events', example: 'TEST12345' },
  },
  'CompletePayment',
  'https://business-api.tiktok.com',
);
