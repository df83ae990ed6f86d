import * as z from 'zod';
import { baseUrl, eventMap, field, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PinterestConfig = z.strictObject({
  adAccountId: field(z.string().min(1, 'adAccountId is required'), {
    label: 'Ad Account ID',
    description: 'The ad account the conversions belong to',
    example: '549755885175',
  }),
  conversionToken: field(secret(z.string().min(1, 'conversionToken is required')), {
    label: 'Conversion Access Token',
    description: 'The conversion access token from Ads Manager',
  }),
  eventMap: eventMap('checkout'),
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('Replaces https://api.pinterest.com (proxies, tests)'),
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
