import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const Ga4Config = z
  .strictObject({
    apiSecret: secret(z.string().min(1, 'apiSecret is required')),
    measurementId: z.string().optional().describe('web data stream measurement ID (G-...); required for gtag'),
    firebaseAppId: z.string().optional().describe('Firebase App ID of an app data stream; required for firebase'),
    typesOfClient: z.enum(['gtag', 'firebase']).optional().describe('web stream (gtag, the default) or app stream (firebase)'),
    debugMode: z.boolean().optional().describe('send to the /debug/mp/collect validation server instead'),
    baseUrl: baseUrl('replaces https://www.google-analytics.com (EU endpoint, proxies, tests)'),
  })
  .refine((c) => (c.typesOfClient ?? 'gtag') !== 'gtag' || !!c.measurementId, {
    message: 'measurementId is required for gtag',
    path: ['measurementId'],
  })
  .refine((c) => c.typesOfClient !== 'firebase' || !!c.firebaseAppId, {
    message: 'firebaseAppId is required for firebase',
    path: ['firebaseAppId'],
  });
export type Ga4Config = z.output<typeof Ga4Config>;

/** Google Analytics 4 as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const ga4Definition = defineDefinition({
  name: 'GA4',
  displayName: 'Google Analytics 4',
  config: Ga4Config,
  supportsTest: true,
  supportsDeletion: false,
});
