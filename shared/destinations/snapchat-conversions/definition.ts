import * as z from 'zod';
import { baseUrl, EventMap, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SnapchatConfig = z.strictObject({
  pixelId: z.string().min(1, 'pixelId is required').describe('the Snap Pixel id the web events belong to'),
  accessToken: secret(z.string().min(1, 'accessToken is required').describe('a Conversions API token of the pixel')),
  eventMap: EventMap,
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('replaces https://tr.snapchat.com (proxies, tests)'),
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
