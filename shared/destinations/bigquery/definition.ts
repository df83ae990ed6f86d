import * as z from 'zod';
import { BASE_URL_LABEL, type FieldTexts, SERVICE_ACCOUNT_KEY_TEXT, ServiceAccountKey } from '../config-schema';
import { defineDefinition } from '../types';

export const BigQueryConfig = z.strictObject({
  projectId: z.string().min(1),
  datasetId: z.string().min(1),
  tableId: z.string().min(1),
  credentials: ServiceAccountKey,
  baseUrl: z.url().optional(),
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

/** What BigQuery Stream's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const bigQueryStreamFields: FieldTexts<typeof BigQueryConfig> = {
  projectId: { label: 'Project ID', description: 'The Google Cloud project', example: 'my-project' },
  datasetId: { label: 'Dataset ID', description: 'The dataset', example: 'analytics' },
  tableId: { label: 'Table ID', description: 'The table rows are inserted into', example: 'events' },
  credentials: SERVICE_ACCOUNT_KEY_TEXT,
  baseUrl: { label: BASE_URL_LABEL, description: 'The BigQuery API root instead of https://bigquery.googleapis.com' },
};
