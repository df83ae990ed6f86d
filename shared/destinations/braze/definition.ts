import * as z from 'zod';
import { type FieldTexts, httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';
import { INSTANCES } from './endpoints';

type Instance = keyof typeof INSTANCES;

export const BrazeConfig = z
  .strictObject({
    restApiKey: secret(z.string().min(1, 'restApiKey is required')),
    appKey: z.string().optional(),
    dataCenter: z.enum(Object.keys(INSTANCES) as [Instance, ...Instance[]]).optional(),
    restEndpoint: httpUrl('restEndpoint').optional(),
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

/** What Braze's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const brazeFields: FieldTexts<typeof BrazeConfig> = {
  restApiKey: { label: 'REST API Key', description: 'The REST API key, sent as a bearer token' },
  appKey: { label: 'App Identifier', description: "The app's identifier, sent as app_id with events and purchases" },
  dataCenter: { label: 'Instance', description: 'The Braze instance, e.g. US-01 or EU-01; this or the REST endpoint is required' },
  restEndpoint: { label: 'REST endpoint', description: "Replaces the instance's REST endpoint (proxies, tests)", example: 'https://rest.iad-01.braze.com' },
};
