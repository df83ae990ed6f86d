import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const IntercomConfig = z.strictObject({
  accessToken: field(secret(z.string().min(1, 'accessToken is required')), {
    label: 'Access Token',
    description: 'The access token of the Intercom app, sent as a bearer token',
  }),
  region: field(z.enum(['US', 'EU', 'AU']).optional(), { label: 'Workspace region', description: "The workspace's region; US when not set" }),
  baseUrl: baseUrl('Replaces the regional API host (proxies, tests)'),
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
