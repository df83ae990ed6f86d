import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const Ga4Config = z
  .strictObject({
    apiSecret: field(secret(z.string().min(1, 'apiSecret is required')), {
      label: 'Measurement Protocol API secret',
      description: 'The Measurement Protocol API secret of the data stream',
    }),
    measurementId: field(z.string().optional(), {
      label: 'Measurement ID',
      description: "The web data stream's measurement ID; required for gtag",
      example: 'G-XXXXXXXXXX',
    }),
    firebaseAppId: field(z.string().optional(), {
      label: 'Firebase App ID',
      description: 'The Firebase App ID of an app data stream; required for firebase',
      example: '1:1234567890:android:321abc456def7890',
    }),
    typesOfClient: field(z.enum(['gtag', 'firebase']).optional(), {
      label: 'Client type',
      description: 'Web stream (gtag, the default) or app stream (firebase)',
    }),
    debugMode: field(z.boolean().optional(), { label: 'Debug mode', description: 'Sends to the /debug/mp/collect validation server instead' }),
    baseUrl: baseUrl('Replaces https://www.google-analytics.com (EU endpoint, proxies, tests)'),
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
