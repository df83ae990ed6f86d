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

export const SnapchatConfig = z.strictObject({
  pixelId: z.string().min(1, 'pixelId is required'),
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  eventMap: EventMap,
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl(),
});
export type SnapchatConfig = z.output<typeof SnapchatConfig>;

/** Snapchat Conversions API as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const snapchatConversionsDefinition = defineDefinition({
  name: 'SNAPCHAT_CONVERSIONS',
  displayName: 'Snapchat Conversions API',
  config: SnapchatConfig,
  supportsTest: true,
  supportsDeletion: false,
});

/** What Snapchat Conversions API's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const snapchatConversionsFields: FieldTexts<typeof SnapchatConfig> = {
  pixelId: { label: 'Pixel ID', description: 'The Snap Pixel ID the web events belong to', example: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890' },
  accessToken: { label: 'Conversions API Token', description: 'A Conversions API token of the pixel' },
  eventMap: {
    label: 'Event mapping',
    description: EVENT_MAP_DESCRIPTION,
    columns: { from: TRACK_EVENT_COLUMN, to: { label: 'Network event', example: 'PURCHASE' } },
  },
  phoneCountryCode: PHONE_COUNTRY_CODE_TEXT,
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces https://tr.snapchat.com (proxies, tests)' },
};
