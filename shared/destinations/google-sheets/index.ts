import { type SortedChunk, nothingToSend, sortChunk, wholeAnswer, withVerdicts } from '../chunk-verdicts';
import { accessToken, forgetToken, parseServiceAccountKey } from '../google/service-account';
import { sendRequest } from '../http-client';
import { get, idText, trimBase } from '../message';
import { type DestinationScope } from '../../tenant-cache';
import { restRequest } from '../request';
import { type Message, defineDestinationCode } from '../types';
import type { GoogleSheetsConfig, googleSheetsDefinition } from './definition';

/**
 * Google Sheets: each event becomes one row appended to the sheet (`spreadsheets.values.append`, values taken
 * as given with `valueInputOption=RAW`): the messageId first, then one cell per `eventKeyMap` entry in order.
 * A chunk is one append call. https://developers.google.com/workspace/sheets/api/reference/rest/v4/spreadsheets.values/append
 */
const SHEETS_SCOPE = 'https://www.googleapis.com/auth/spreadsheets';
const SHEETS_BASE = 'https://sheets.googleapis.com';
/** Rows per append: Google advises requests of at most 2 MB; 500 short rows stay well under it. */
const MAX_ROWS = 500;

type Config = GoogleSheetsConfig;
type Cell = string | number | boolean;

/** A property, else a trait, else a path into the event (e.g. `context.ip`). */
const valueOf = (message: Message, from: string): unknown =>
  [get(message, `properties.${from}`), get(message, `traits.${from}`), get(message, `context.traits.${from}`), get(message, from)].find(
    (value) => value !== undefined && value !== null,
  );

function cellOf(value: unknown): Cell {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
  return JSON.stringify(value);
}

/** The row of one event: its messageId, then the mapped cells. */
export function rowOf(message: Message, c: Pick<Config, 'eventKeyMap'>): Cell[] | { refused: string } {
  const messageId = idText(message.messageId);
  if (!messageId) return { refused: 'an event needs a messageId (the first column)' };
  return [messageId, ...(c.eventKeyMap ?? []).map(({ from }) => cellOf(valueOf(message, from)))];
}

/** The sheet name as A1 notation quotes it, so names with spaces or quotes are taken whole. */
const sheetRange = (name: string) => `'${name.replace(/'/g, "''")}'`;

async function append(chunk: SortedChunk<Cell[]>, c: Config, owner: DestinationScope) {
  const key = parseServiceAccountKey(c.credentials);
  if (!key.ok) return withVerdicts({ status: 400, response: '', error: key.error, retryable: false }, chunk, () => ({ kind: 'refused', error: key.error }));
  const token = await accessToken(owner, key.key, SHEETS_SCOPE);
  if (!token.ok) return withVerdicts(token.result, chunk, () => wholeAnswer(token.result));
  const range = sheetRange(c.sheetName);
  const answer = await sendRequest(
    restRequest({
      method: 'POST',
      endpoint: `${trimBase(c.baseUrl ?? SHEETS_BASE)}/v4/spreadsheets/${encodeURIComponent(c.sheetId)}/values/${encodeURIComponent(range)}:append`,
      params: { valueInputOption: 'RAW', insertDataOption: 'INSERT_ROWS' },
      headers: { authorization: `Bearer ${token.token}` },
      json: { range, majorDimension: 'ROWS', values: chunk.accepted.map(({ item }) => item) },
    }),
  );
  if (answer.status === 401) forgetToken(owner, key.key, SHEETS_SCOPE);
  const result = answer.status === 401 ? { ...answer, retryable: true } : answer;
  return withVerdicts(result, chunk, () => wholeAnswer(result));
}

export const googleSheets = defineDestinationCode<typeof googleSheetsDefinition>({
  delivery: 'server',
  serverBatch: {
    maxEvents: MAX_ROWS,
    async deliver(messages, c, context) {
      const chunk = sortChunk(messages, (message) => rowOf(message, c));
      return chunk.accepted.length === 0 ? nothingToSend(chunk.verdicts) : append(chunk, c, context);
    },
  },
});
