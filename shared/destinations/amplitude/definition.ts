import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const AmplitudeConfig = z.strictObject({
  apiKey: secret(z.string().min(1, 'apiKey is required')),
  apiSecret: secret(z.string()).optional().describe('the secret key; needed to delete users'),
  residencyServer: z.enum(['standard', 'EU']).optional(),
  baseUrl: baseUrl('replaces both API hosts (proxies, tests)'),
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
