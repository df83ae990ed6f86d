import * as z from 'zod';
import { baseUrl, field, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const KlaviyoConfig = z.strictObject({
  privateApiKey: field(secret(z.string().min(1, 'privateApiKey is required')), { label: 'Private API Key', description: 'A private API key (pk_...)' }),
  baseUrl: baseUrl('Replaces https://a.klaviyo.com (proxies, tests)'),
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
