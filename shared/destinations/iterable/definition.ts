import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const IterableConfig = z.strictObject({
  apiKey: secret(z.string().min(1, 'apiKey is required').describe('a server-side API key of the project')),
  dataCenter: z.enum(['US', 'EU']).optional().describe("the project's data centre; US when not set"),
  baseUrl: baseUrl('replaces the API host (proxies, tests)'),
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
