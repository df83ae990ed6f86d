import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const CustomerioConfig = z.strictObject({
  siteID: z.string().min(1, 'siteID is required'),
  apiKey: secret(z.string().min(1, 'apiKey is required')),
  datacenter: z.enum(['US', 'EU']).optional().describe('account region; US when not set'),
  baseUrl: baseUrl('replaces the Track API host (proxies, tests)'),
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
