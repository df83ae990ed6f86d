import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const CustomerioConfig = z.strictObject({
  siteID: field(z.string().min(1, 'siteID is required'), { label: 'Site ID', description: "The workspace's site ID (the Track API's Basic user name)" }),
  apiKey: field(secret(z.string().min(1, 'apiKey is required')), { label: 'API Key', description: 'The Track API key (the Basic password)' }),
  datacenter: field(z.enum(['US', 'EU']).optional(), { label: 'Account region', description: "The account's region; US when not set" }),
  baseUrl: baseUrl('Replaces the Track API host (proxies, tests)'),
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
