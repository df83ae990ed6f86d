import * as z from 'zod';
import { baseUrl, eventMap, field, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SnapchatConfig = z.strictObject({
  pixelId: field(z.string().min(1, 'pixelId is required'), {
    label: 'Pixel ID',
    description: 'The Snap Pixel ID the web events belong to',
    example: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890',
  }),
  accessToken: field(secret(z.string().min(1, 'accessToken is required')), {
    label: 'Conversions API Token',
    description: 'A Conversions API token of the pixel',
  }),
  eventMap: eventMap('PURCHASE'),
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('Replaces https://tr.snapchat.com (proxies, tests)'),
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
