import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, PHONE_COUNTRY_CODE_TEXT, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const KlaviyoConfig = z.strictObject({
  privateApiKey: secret(z.string().min(1, 'privateApiKey is required')),
  baseUrl: baseUrl(),
  phoneCountryCode: PhoneCountryCode,
});
export type KlaviyoConfig = z.output<typeof KlaviyoConfig>;

/** Klaviyo as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const klaviyoDefinition = defineDefinition({
  name: 'KLAVIYO',
  displayName: 'Klaviyo',
  config: KlaviyoConfig,
  supportsTest: true,
  supportsDeletion: true,
});

/** What Klaviyo's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const klaviyoFields: FieldTexts<typeof KlaviyoConfig> = {
  privateApiKey: { label: 'Private API Key', description: 'A private API key (pk_...)' },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces https://a.klaviyo.com (proxies, tests)' },
  phoneCountryCode: PHONE_COUNTRY_CODE_TEXT,
};
