import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const HeapConfig = z.strictObject({
  appId: z.string().min(1, 'appId is required').describe('the environment ID (app_id) events go to'),
  apiKey: secret(z.string()).optional().describe('the API key of Privacy & Security; needed to delete users, with the Main Production app_id'),
  dataCenter: z.enum(['US', 'EU']).optional().describe("the account's data center; US when not set"),
  baseUrl: baseUrl('replaces both API hosts (proxies, tests)'),
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
