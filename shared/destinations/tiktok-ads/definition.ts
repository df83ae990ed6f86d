import * as z from 'zod';
import {
  BASE_URL_LABEL,
  baseUrl,
  EVENT_MAP_DESCRIPTION,
  EventMap,
  type FieldTexts,
  PHONE_COUNTRY_CODE_TEXT,
  PhoneCountryCode,
  secret,
  TRACK_EVENT_COLUMN,
} from '../config-schema';
import { defineDefinition } from '../types';

export const TikTokConfig = z.strictObject({
  pixelCode: z.string().min(1, 'pixelCode is required'),
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  testEventCode: z.string().optional(),
  eventMap: EventMap,
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl(),
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
export const tiktokAdsFields: FieldTexts<typeof TikTokConfig> = {
  pixelCode: { label: 'Pixel Code', description: 'The pixel code, sent as event_source_id', example: 'CXXXXXXXXXXXXXXXXXXX' },
  accessToken: { label: 'Access Token', description: 'The Events API access token of the pixel' },
  testEventCode: { label: 'Test event code', description: 'Sends to Test Events instead of counting the events', example: 'TEST12345' },
  eventMap: {
    label: 'Event mapping',
    description: EVENT_MAP_DESCRIPTION,
    columns: { from: TRACK_EVENT_COLUMN, to: { label: 'Network event', example: 'CompletePayment' } },
  },
  phoneCountryCode: PHONE_COUNTRY_CODE_TEXT,
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces https://business-api.tiktok.com (proxies, tests)' },
};
