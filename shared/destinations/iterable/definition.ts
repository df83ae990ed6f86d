import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const IterableConfig = z.strictObject({
  apiKey: secret(z.string().min(1, 'apiKey is required')),
  dataCenter: z.enum(['US', 'EU']).optional(),
  baseUrl: baseUrl(),
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

/** What Iterable's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const iterableFields: FieldTexts<typeof IterableConfig> = {
  apiKey: { label: 'API Key', description: 'A server-side API key of the project' },
  dataCenter: { label: 'Data center', description: "The project's data center; US when not set" },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces the API host (proxies, tests)' },
};
