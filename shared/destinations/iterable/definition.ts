import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const IterableConfig = z.strictObject({
  apiKey: field(secret(z.string().min(1, 'apiKey is required')), { label: 'API Key', description: 'A server-side API key of the project' }),
  dataCenter: field(z.enum(['US', 'EU']).optional(), { label: 'Data center', description: "The project's data center; US when not set" }),
  baseUrl: baseUrl('Replaces the API host (proxies, tests)'),
});
export type IterableConfig = z.output<typeof IterableConfig>;

/** Iterable as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const iterableDefinition = defineDefinition({
  name: 'ITERABLE',
  displayName: 'Iterable',
  config: IterableConfig,
  supportsTest: true,
  supportsDeletion: true,
});
