import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const CustomerioConfig = z.strictObject({
  siteID: z.string().min(1, 'siteID is required'),
  apiKey: secret(z.string().min(1, 'apiKey is required')),
  datacenter: z.enum(['US', 'EU']).optional(),
  baseUrl: baseUrl(),
});
export type CustomerioConfig = z.output<typeof CustomerioConfig>;

/** Customer.io as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const customerioDefinition = defineDefinition({
  name: 'CUSTOMERIO',
  displayName: 'Customer.io',
  config: CustomerioConfig,
  supportsTest: true,
  supportsDeletion: true,
});

/** What Customer.io's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const customerioFields: FieldTexts<typeof CustomerioConfig> = {
  siteID: { label: 'Site ID', description: "The workspace's site ID (the Track API's Basic user name)" },
  apiKey: { label: 'API Key', description: 'The Track API key (the Basic password)' },
  datacenter: { label: 'Account region', description: "The account's region; US when not set" },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces the Track API host (proxies, tests)' },
};
