import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const MixpanelConfig = z.strictObject({
  token: secret(z.string().min(1, 'token is required')),
  apiSecret: secret(z.string()).optional(),
  dataResidency: z.enum(['us', 'eu', 'in']).optional(),
  baseUrl: baseUrl(),
  gdprApiToken: secret(z.string()).optional(),
});
export type MixpanelConfig = z.output<typeof MixpanelConfig>;

/** Mixpanel as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const mixpanelDefinition = defineDefinition({
  name: 'MP',
  displayName: 'Mixpanel',
  config: MixpanelConfig,
  supportsTest: true,
  supportsDeletion: true,
});

/** What Mixpanel's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const mixpanelFields: FieldTexts<typeof MixpanelConfig> = {
  token: { label: 'Project Token', description: 'The project token events are sent with' },
  apiSecret: { label: 'API Secret', description: 'The project secret: events go to /import (Basic auth) instead of /track' },
  dataResidency: { label: 'Data residency', description: "The project's data residency (its API and app hosts); us when not set" },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces both API hosts (proxies, tests)' },
  gdprApiToken: { label: 'GDPR API Token', description: 'The OAuth token of the GDPR API; needed to delete users' },
};
