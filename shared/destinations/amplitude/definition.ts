import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const AmplitudeConfig = z.strictObject({
  apiKey: secret(z.string().min(1, 'apiKey is required')),
  apiSecret: secret(z.string()).optional(),
  residencyServer: z.enum(['standard', 'EU']).optional(),
  baseUrl: baseUrl(),
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

/** What Amplitude's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const amplitudeFields: FieldTexts<typeof AmplitudeConfig> = {
  apiKey: { label: 'API Key', description: "The project's API key" },
  apiSecret: { label: 'Secret Key', description: "The project's secret key; needed to delete users" },
  residencyServer: { label: 'Data residency', description: "EU sends to Amplitude's EU hosts; standard (the default) to the US ones" },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces both API hosts (proxies, tests)' },
};
