import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const HubspotConfig = z.strictObject({
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  portalId: z.string().regex(/^\d+$/, 'portalId must be the HubID, digits only').optional(),
  eventNames: z.array(z.strictObject({ from: z.string(), to: z.string() })).optional(),
  contactProperties: z.array(z.strictObject({ from: z.string(), to: z.string() })).optional(),
  baseUrl: baseUrl(),
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

/** What HubSpot's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const hubspotFields: FieldTexts<typeof HubspotConfig> = {
  accessToken: { label: 'Private app access token', description: "The private app's access token, sent as a bearer token" },
  portalId: {
    label: 'Hub ID',
    description: "The account's HubID: a track event not in Custom events goes to the custom event pe<HubID>_<event name>",
    example: '1234567',
  },
  eventNames: {
    label: 'Custom events',
    description: "Track event name → the custom event's fully qualified name (pe<HubID>_<name>)",
    columns: { from: { label: 'Track event', example: 'Order Completed' }, to: { label: 'Custom event', example: 'pe1234567_order_completed' } },
  },
  contactProperties: {
    label: 'Contact properties',
    description: "Further traits sent as contact properties (the property's internal name)",
    columns: { from: { label: 'Trait', example: 'plan' }, to: { label: 'Contact property', example: 'plan_tier' } },
  },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces https://api.hubapi.com (proxies, tests)' },
};
