import * as z from 'zod';
import { baseUrl, field, pairs, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const HubspotConfig = z.strictObject({
  accessToken: field(secret(z.string().min(1, 'accessToken is required')), {
    label: 'Private app access token',
    description: "The private app's access token, sent as a bearer token",
  }),
  portalId: field(z.string().regex(/^\d+$/, 'portalId must be the HubID, digits only').optional(), {
    label: 'Hub ID',
    description: "The account's HubID: a track event not in Custom events goes to the custom event pe<HubID>_<event name>",
    example: '1234567',
  }),
  eventNames: field(pairs({ label: 'Track event', example: 'Order Completed' }, { label: 'Custom event', example: 'pe1234567_order_completed' }).optional(), {
    label: 'Custom events',
    description: "Track event name → the custom event's fully qualified name (pe<HubID>_<name>)",
  }),
  contactProperties: field(pairs({ label: 'Trait', example: 'plan' }, { label: 'Contact property', example: 'plan_tier' }).optional(), {
    label: 'Contact properties',
    description: "Further traits sent as contact properties (the property's internal name)",
  }),
  baseUrl: baseUrl('Replaces https://api.hubapi.com (proxies, tests)'),
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
