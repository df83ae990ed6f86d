import * as z from 'zod';
import { field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const BigQueryConfig = z.strictObject({
  projectId: field(z.string().min(1), { label: 'Project ID', description: 'The Google Cloud project', example: 'my-project' }),
  datasetId: field(z.string().min(1), { label: 'Dataset ID', description: 'The dataset', example: 'analytics' }),
  tableId: field(z.string().min(1), { label: 'Table ID', description: 'The table rows are inserted into', example: 'events' }),
  credentials: field(secret(z.string().min(1)), {
    label: 'Service account key',
    description: "The service account's key file (its JSON text)",
    example: '{"type": "service_account", ...}',
  }),
  baseUrl: field(z.url().optional(), {
    label: 'Base URL',
    description: 'The BigQuery API root instead of https://bigquery.googleapis.com',
    example: 'https://proxy.example.com',
  }),
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
