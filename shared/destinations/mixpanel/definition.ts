import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const MixpanelConfig = z.strictObject({
  token: field(secret(z.string().min(1, 'token is required')), { label: 'Project Token', description: 'The project token events are sent with' }),
  apiSecret: field(secret(z.string()).optional(), {
    label: 'API Secret',
    description: 'The project secret: events go to /import (Basic auth) instead of /track',
  }),
  dataResidency: field(z.enum(['us', 'eu', 'in']).optional(), {
    label: 'Data residency',
    description: "The project's data residency (its API and app hosts); us when not set",
  }),
  baseUrl: baseUrl('Replaces both API hosts (proxies, tests)'),
  gdprApiToken: field(secret(z.string()).optional(), { label: 'GDPR API Token', description: 'The OAuth token of the GDPR API; needed to delete users' }),
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
