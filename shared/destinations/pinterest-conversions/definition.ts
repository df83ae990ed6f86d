import * as z from 'zod';
import { baseUrl, EventMap, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PinterestConfig = z.strictObject({
  adAccountId: z.string().min(1, 'adAccountId is required').describe('the ad account the conversions belong to'),
  conversionToken: secret(z.string().min(1, 'conversionToken is required').describe('the conversion access token from Ads Manager')),
  eventMap: EventMap,
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('replaces https://api.pinterest.com (proxies, tests)'),
});
export type PinterestConfig = z.output<typeof PinterestConfig>;

/** Pinterest Conversions API as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const pinterestConversionsDefinition = defineDefinition({
  name: 'PINTEREST_CONVERSIONS',
  displayName: 'Pinterest Conversions API',
  config: PinterestConfig,
  supportsTest: true,
  supportsDeletion: false,
});
