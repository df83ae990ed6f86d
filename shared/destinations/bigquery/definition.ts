import * as z from 'zod';
import { secret } from '../config-schema';
import { defineDefinition } from '../types';

export const BigQueryConfig = z.strictObject({
  projectId: z.string().min(1),
  datasetId: z.string().min(1),
  tableId: z.string().min(1),
  credentials: secret(z.string().min(1).describe('service account key (JSON text)')),
  baseUrl: z.url().optional().describe('the BigQuery API root instead of https://bigquery.googleapis.com'),
});
export type BigQueryConfig = z.output<typeof BigQueryConfig>;

/** BigQuery Stream as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const bigQueryStreamDefinition = defineDefinition({
  name: 'BQSTREAM',
  displayName: 'BigQuery Stream',
  config: BigQueryConfig,
  supportsTest: false,
  supportsDeletion: false,
});
