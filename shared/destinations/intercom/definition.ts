import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const IntercomConfig = z.strictObject({
  accessToken: secret(z.string().min(1, 'accessToken is required').describe('the access token of the Intercom app, sent as a bearer token')),
  region: z.enum(['US', 'EU', 'AU']).optional().describe('the workspace region; US when not set'),
  baseUrl: baseUrl('replaces the regional API host (proxies, tests)'),
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
