import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const MixpanelConfig = z.strictObject({
  token: secret(z.string().min(1, 'token is required')),
  apiSecret: secret(z.string()).optional().describe('project secret: events go to /import (Basic auth) instead of /track'),
  dataResidency: z.enum(['us', 'eu', 'in']).optional(),
  baseUrl: baseUrl('replaces both API hosts (proxies, tests)'),
  gdprApiToken: secret(z.string()).optional().describe('GDPR API OAuth token; needed to delete users'),
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
