import * as z from 'zod';
import { BASE_URL_LABEL, type FieldTexts, SERVICE_ACCOUNT_KEY_TEXT, ServiceAccountKey } from '../config-schema';
import { defineDefinition } from '../types';

export const GoogleSheetsConfig = z.strictObject({
  credentials: ServiceAccountKey,
  sheetId: z.string().min(1),
  sheetName: z.string().min(1),
  eventKeyMap: z.array(z.strictObject({ from: z.string().min(1), to: z.string() })).optional(),
  baseUrl: z.url().optional(),
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

/** What Google Sheets's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const googleSheetsFields: FieldTexts<typeof GoogleSheetsConfig> = {
  credentials: SERVICE_ACCOUNT_KEY_TEXT,
  sheetId: { label: 'Spreadsheet ID', description: "The spreadsheet's ID, from its URL", example: '1BxiMVs0XRA5nFMdKvBdBZjgmUUqptlbs74OgvE2upms' },
  sheetName: { label: 'Sheet name', description: 'The tab rows are appended to', example: 'Sheet1' },
  eventKeyMap: {
    label: 'Columns',
    description: 'Columns after messageId: an event property, trait or path, and its column heading',
    columns: { from: { label: 'Event key', example: 'properties.revenue' }, to: { label: 'Column heading', example: 'Revenue' } },
  },
  baseUrl: { label: BASE_URL_LABEL, description: 'The Sheets API root instead of https://sheets.googleapis.com' },
};
