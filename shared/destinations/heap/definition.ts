import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const HeapConfig = z.strictObject({
  appId: z.string().min(1, 'appId is required'),
  apiKey: secret(z.string()).optional(),
  dataCenter: z.enum(['US', 'EU']).optional(),
  baseUrl: baseUrl(),
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

/** What Heap's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const heapFields: FieldTexts<typeof HeapConfig> = {
  appId: { label: 'App ID', description: 'The environment ID (app_id) events go to', example: '1234567890' },
  apiKey: { label: 'API Key', description: 'The Privacy & Security API key; needed to delete users, with the Main Production app ID' },
  dataCenter: { label: 'Data center', description: "The account's data center; US when not set" },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces both API hosts (proxies, tests)' },
};
