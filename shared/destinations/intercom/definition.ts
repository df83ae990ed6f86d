import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const IntercomConfig = z.strictObject({
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  region: z.enum(['US', 'EU', 'AU']).optional(),
  baseUrl: baseUrl(),
});
export type IntercomConfig = z.output<typeof IntercomConfig>;

/** Intercom as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const intercomDefinition = defineDefinition({
  name: 'INTERCOM',
  displayName: 'Intercom',
  config: IntercomConfig,
  supportsTest: true,
  supportsDeletion: true,
});

/** What Intercom's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const intercomFields: FieldTexts<typeof IntercomConfig> = {
  accessToken: { label: 'Access Token', description: 'The access token of the Intercom app, sent as a bearer token' },
  region: { label: 'Workspace region', description: "The workspace's region; US when not set" },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces the regional API host (proxies, tests)' },
};
