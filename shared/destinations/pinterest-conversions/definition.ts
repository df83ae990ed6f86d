import * as z from 'zod';
import { adNetworkConfig, adNetworkTexts, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PinterestConfig = z.strictObject({
  adAccountId: z.string().min(1, 'adAccountId is required'),
  conversionToken: secret(z.string().min(1, 'conversionToken is required')),
  ...adNetworkConfig(),
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

/** What Pinterest Conversions API's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const pinterestConversionsFields: FieldTexts<typeof PinterestConfig> = /* @__PURE__ */ adNetworkTexts(
  {
    adAccountId: { label: 'Ad Account ID', description: 'The ad account the conversions belong to', example: '549755885175' },
    conversionToken: { label: 'Conversion Access Token', description: 'The conversion access token from Ads Manager' },
  },
  'checkout',
  'https://api.pinterest.com',
);
