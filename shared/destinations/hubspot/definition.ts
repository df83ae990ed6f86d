import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const HubspotConfig = z.strictObject({
  accessToken: secret(z.string().min(1, 'accessToken is required').describe('private app access token, sent as a bearer token')),
  portalId: z
    .string()
    .regex(/^\d+$/, 'portalId must be the HubID, digits only')
    .optional()
    .describe('the HubID: a track event not in eventNames goes to the custom event pe<HubID>_<event name>'),
  eventNames: z
    .array(z.strictObject({ from: z.string(), to: z.string() }))
    .optional()
    .describe('track event name → the custom event fully qualified name (pe<HubID>_<name>), {from, to}'),
  contactProperties: z
    .array(z.strictObject({ from: z.string(), to: z.string() }))
    .optional()
    .describe('further traits sent as contact properties, {from: trait, to: HubSpot property internal name}'),
  baseUrl: baseUrl('replaces https://api.hubapi.com (proxies, tests)'),
});
export type HubspotConfig = z.output<typeof HubspotConfig>;

/** HubSpot as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const hubspotDefinition = defineDefinition({
  name: 'HS',
  displayName: 'HubSpot',
  config: HubspotConfig,
  supportsTest: true,
  supportsDeletion: true,
});
