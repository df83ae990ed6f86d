import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const HeapConfig = z.strictObject({
  appId: field(z.string().min(1, 'appId is required'), { label: 'App ID', description: 'The environment ID (app_id) events go to', example: '1234567890' }),
  apiKey: field(secret(z.string()).optional(), {
    label: 'API Key',
    description: 'The Privacy & Security API key; needed to delete users, with the Main Production app ID',
  }),
  dataCenter: field(z.enum(['US', 'EU']).optional(), { label: 'Data center', description: "The account's data center; US when not set" }),
  baseUrl: baseUrl('Replaces both API hosts (proxies, tests)'),
});
export type HeapConfig = z.output<typeof HeapConfig>;

/** Heap as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const heapDefinition = defineDefinition({
  name: 'HEAP',
  displayName: 'Heap',
  config: HeapConfig,
  supportsTest: true,
  supportsDeletion: true,
});
