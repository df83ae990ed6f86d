import * as z from 'zod';
import { httpUrl } from '../config-schema';
import { defineDefinition } from '../types';

// "API and SDK endpoints" (braze.com/docs/user_guide/administrative/access_braze/sdk_endpoints): REST endpoint per instance.
export const INSTANCES = {
  'US-01': 'https://rest.iad-01.braze.com',
  'US-02': 'https://rest.iad-02.braze.com',
  'US-03': 'https://rest.iad-03.braze.com',
  'US-04': 'https://rest.iad-04.braze.com',
  'US-05': 'https://rest.iad-05.braze.com',
  'US-06': 'https://rest.iad-06.braze.com',
  'US-07': 'https://rest.iad-07.braze.com',
  'US-08': 'https://rest.iad-08.braze.com',
  'US-10': 'https://rest.us-10.braze.com',
  'EU-01': 'https://rest.fra-01.braze.eu',
  'EU-02': 'https://rest.fra-02.braze.eu',
  'AU-01': 'https://rest.au-01.braze.com',
} as const;
type Instance = keyof typeof INSTANCES;

export const BrazeConfig = z
  .strictObject({
    restApiKey: z.string().min(1, 'restApiKey is required'),
    appKey: z.string().optional().describe('app identifier, sent as app_id with events and purchases'),
    dataCenter: z
      .enum(Object.keys(INSTANCES) as [Instance, ...Instance[]])
      .optional()
      .describe('the Braze instance, e.g. US-01 or EU-01'),
    restEndpoint: httpUrl('restEndpoint').optional().describe('replaces the instance REST endpoint (proxies, tests)'),
  })
  .refine((c) => c.dataCenter !== undefined || c.restEndpoint !== undefined, {
    message: 'dataCenter or restEndpoint is required',
    path: ['dataCenter'],
  });
export type BrazeConfig = z.output<typeof BrazeConfig>;

/** Braze as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const brazeDefinition = defineDefinition({
  name: 'BRAZE',
  displayName: 'Braze',
  config: BrazeConfig,
  supportsTest: true,
  supportsDeletion: true,
});
