import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const Ga4Config = z
  .strictObject({
    apiSecret: secret(z.string().min(1, 'apiSecret is required')),
    measurementId: z.string().optional(),
    firebaseAppId: z.string().optional(),
    typesOfClient: z.enum(['gtag', 'firebase']).optional(),
    debugMode: z.boolean().optional(),
    baseUrl: baseUrl(),
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

/** What Google Analytics 4's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const ga4Fields: FieldTexts<typeof Ga4Config> = {
  apiSecret: { label: 'Measurement Protocol API secret', description: 'The Measurement Protocol API secret of the data stream' },
  measurementId: { label: 'Measurement ID', description: "The web data stream's measurement ID; required for gtag", example: 'G-XXXXXXXXXX' },
  firebaseAppId: {
    label: 'Firebase App ID',
    description: 'The Firebase App ID of an app data stream; required for firebase',
    example: '1:1234567890:android:321abc456def7890',
  },
  typesOfClient: { label: 'Client type', description: 'Web stream (gtag, the default) or app stream (firebase)' },
  debugMode: { label: 'Debug mode', description: 'Sends to the /debug/mp/collect validation server instead' },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces https://www.google-analytics.com (EU endpoint, proxies, tests)' },
};
