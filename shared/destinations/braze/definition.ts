import * as z from 'zod';
import { httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';
import { INSTANCES } from './endpoints';

type Instance = keyof typeof INSTANCES;

export const BrazeConfig = z
  .strictObject({
    restApiKey: secret(z.string().min(1, 'restApiKey is required')),
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
