import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const AmplitudeConfig = z.strictObject({
  apiKey: field(secret(z.string().min(1, 'apiKey is required')), { label: 'API Key', description: "The project's API key" }),
  apiSecret: field(secret(z.string()).optional(), { label: 'Secret Key', description: "The project's secret key; needed to delete users" }),
  residencyServer: field(z.enum(['standard', 'EU']).optional(), {
    label: 'Data residency',
    description: "EU sends to Amplitude's EU hosts; standard (the default) to the US ones",
  }),
  baseUrl: baseUrl('Replaces both API hosts (proxies, tests)'),
});
export type AmplitudeConfig = z.output<typeof AmplitudeConfig>;

/** Amplitude as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const amplitudeDefinition = defineDefinition({
  name: 'AM',
  displayName: 'Amplitude',
  config: AmplitudeConfig,
  supportsTest: true,
  supportsDeletion: true,
});
