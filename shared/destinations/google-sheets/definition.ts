import * as z from 'zod';
import { field, pairs, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const GoogleSheetsConfig = z.strictObject({
  credentials: field(secret(z.string().min(1)), {
    label: 'Service account key',
    description: "The service account's key file (its JSON text)",
    example: '{"type": "service_account", ...}',
  }),
  sheetId: field(z.string().min(1), {
    label: 'Spreadsheet ID',
    description: "The spreadsheet's ID, from its URL",
    example: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms',
  }),
  sheetName: field(z.string().min(1), { label: 'Sheet name', description: 'The tab rows are appended to', example: 'Sheet1' }),
  eventKeyMap: field(
    pairs({ label: 'Event key', example: 'properties.revenue', schema: z.string().min(1) }, { label: 'Column heading', example: 'Revenue' }).optional(),
    { label: 'Columns', description: 'Columns after messageId: an event property, trait or path, and its column heading' },
  ),
  baseUrl: field(z.url().optional(), {
    label: 'Base URL',
    description: 'The Sheets API root instead of https://sheets.googleapis.com',
    example: 'https://proxy.example.com',
  }),
});
export type GoogleSheetsConfig = z.output<typeof GoogleSheetsConfig>;

/** Google Sheets as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const googleSheetsDefinition = defineDefinition({
  name: 'GOOGLESHEETS',
  displayName: 'Google Sheets',
  config: GoogleSheetsConfig,
  supportsTest: false,
  supportsDeletion: false,
});
