import * as z from 'zod';
import { defineDestination } from '../types';

/**
 * Types the data plane's own server delivers (SPEC §4.C rule 9): registered so destinations of these types
 * can be created and connected now; the test interface refuses them, live delivery takes them over.
 */
const Secret = z.string().min(1);

export const kafka = defineDestination({
  name: 'KAFKA',
  displayName: 'Apache Kafka',
  delivery: 'server',
  config: z.strictObject({
    hostname: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    topic: z.string().min(1),
    sslEnabled: z.boolean().optional(),
    caCertificate: z.string().optional(),
    useSASL: z.boolean().optional(),
    saslType: z.enum(['plain', 'sha256', 'sha512']).optional(),
    username: z.string().optional(),
    password: z.string().optional(),
  }),
});

export const googleSheets = defineDestination({
  name: 'GOOGLESHEETS',
  displayName: 'Google Sheets',
  delivery: 'server',
  config: z.strictObject({
    credentials: Secret.describe('service account key (JSON text)'),
    sheetId: z.string().min(1),
    sheetName: z.string().min(1),
    eventKeyMap: z.array(z.strictObject({ from: z.string(), to: z.string() })).optional(),
  }),
});

export const bigQueryStream = defineDestination({
  name: 'BQSTREAM',
  displayName: 'BigQuery Stream',
  delivery: 'server',
  config: z.strictObject({
    projectId: z.string().min(1),
    datasetId: z.string().min(1),
    tableId: z.string().min(1),
    credentials: Secret.describe('service account key (JSON text)'),
  }),
});
