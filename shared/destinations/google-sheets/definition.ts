import * as z from 'zod';
import { secret } from '../config-schema';
import { defineDefinition } from '../types';

export const GoogleSheetsConfig = z.strictObject({
  credentials: secret(z.string().min(1).describe('service account key (JSON text)')),
  sheetId: z.string().min(1).describe('the spreadsheet id, from its URL'),
  sheetName: z.string().min(1).describe('the tab rows are appended to'),
  eventKeyMap: z
    .array(z.strictObject({ from: z.string().min(1), to: z.string() }))
    .optional()
    .describe('columns after messageId: `from` an event property, trait or path, `to` the column heading'),
  baseUrl: z.url().optional().describe('the Sheets API root instead of https://sheets.googleapis.com'),
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
