import { type SortedChunk, nothingToSend, sortChunk, wholeAnswer, withVerdicts } from '../chunk-verdicts';
import { accessToken, forgetToken, parseServiceAccountKey } from '../google/service-account';
import { sendRequest } from '../http-client';
import { idText, isRecord, propertiesOf, trimBase } from '../message';
import { type DestinationScope } from '../../tenant-cache';
import { restRequest } from '../request';
import { type ChunkEventVerdict, type DeliveryResult, type Message, defineDestinationCode } from '../types';
import type { BigQueryConfig, bigQueryStreamDefinition } from './definition';

/**
 * BigQuery streaming inserts (`tabledata.insertAll`): a track event's properties become one row, its
 * messageId the row's `insertId`, so BigQuery drops a row sent again within its de-duplication window.
 * https://cloud.google.com/bigquery/docs/reference/rest/v2/tabledata/insertAll
 */
const BIGQUERY_SCOPE = 'https://www.googleapis.com/auth/bigquery.insertdata';
const BIGQUERY_BASE = 'https://bigquery.googleapis.com';
/** Google recommends at most 500 rows per insertAll request. */
const MAX_ROWS = 500;

type Config = BigQueryConfig;

interface Row {
  insertId: string;
  json: Record<string, unknown>;
}

function rowOf(message: Message): Row | { refused: string } {
  if (message.type !== 'track') return { refused: `BigQuery Stream takes track events; ${String(message.type)} is not sent` };
  const insertId = idText(message.messageId);
  if (!insertId) return { refused: 'a track event needs a messageId (the row insertId)' };
  return { insertId, json: propertiesOf(message) };
}

const insertAllUrl = (c: Config) =>
  `${trimBase(c.baseUrl ?? BIGQUERY_BASE)}/bigquery/v2/projects/${encodeURIComponent(c.projectId)}/datasets/${encodeURIComponent(c.datasetId)}/tables/${encodeURIComponent(c.tableId)}/insertAll`;

interface InsertError {
  index?: number;
  errors?: { reason?: string; message?: string }[];
}

/**
 * A 200 may still list rows it did not insert. With `skipInvalidRows: false` the rows that are fine are
 * `stopped` (not inserted because others were invalid): those may go again, the `invalid` ones never.
 */
function rowVerdicts(answer: DeliveryResult, sent: number): (position: number) => ChunkEventVerdict {
  const insertErrors = isRecord(answer.response) && Array.isArray(answer.response.insertErrors) ? (answer.response.insertErrors as InsertError[]) : [];
  if (answer.status !== 200 || insertErrors.length === 0) return () => wholeAnswer(answer);
  const byIndex = new Map<number, ChunkEventVerdict>();
  for (const { index, errors = [] } of insertErrors) {
    if (typeof index !== 'number' || index < 0 || index >= sent) continue;
    const error = errors.map((e) => [e.reason, e.message].filter(Boolean).join(': ')).join('; ') || 'not inserted';
    byIndex.set(index, errors.some((e) => e.reason === 'invalid') ? { kind: 'refused', error } : { kind: 'retryable', error });
  }
  return (position) => byIndex.get(position) ?? { kind: 'delivered' };
}

/**
 * "Troubleshoot quota and limit errors" (cloud.google.com/bigquery/docs/troubleshoot-quotas, read 2026-11-29):
 * "If a BigQuery operation fails because of exceeding a quota, the API returns the HTTP 403 Forbidden status
 * code", with `reason` rateLimitExceeded ("retry the operation after few seconds") or quotaExceeded: parked and
 * retried, not aborted as another 403 (a permission refused) is. The reasons are read where Google's APIs put
 * them (`error.errors[].reason`) and at the top, as that page shows them.
 */
function bigQueryThrottled(answer: { status: number; response: unknown }): boolean {
  const body = isRecord(answer.response) ? answer.response : {};
  const errors: unknown = [body.errors, isRecord(body.error) && body.error.errors].flat();
  return (errors as Record<string, unknown>[]).some((e) => /^(rateLimitExceeded|quotaExceeded)$/.test(String(e?.reason)));
}

async function insertAll(chunk: SortedChunk<Row>, c: Config, owner: DestinationScope) {
  const key = parseServiceAccountKey(c.credentials);
  if (!key.ok) return withVerdicts({ status: 400, response: '', error: key.error, retryable: false }, chunk, () => ({ kind: 'refused', error: key.error }));
  const token = await accessToken(owner, key.key, BIGQUERY_SCOPE);
  if (!token.ok) return withVerdicts(token.result, chunk, () => wholeAnswer(token.result));
  const answer = await sendRequest(
    restRequest({
      method: 'POST',
      endpoint: insertAllUrl(c),
      headers: { authorization: `Bearer ${token.token}` },
      json: { kind: 'bigquery#tableDataInsertAllRequest', skipInvalidRows: false, ignoreUnknownValues: false, rows: chunk.accepted.map(({ item }) => item) },
    }),
    { throttled: bigQueryThrottled },
  );
  // A 401 means the token was revoked or the key rotated: the next attempt asks for a new one.
  if (answer.status === 401) forgetToken(owner, key.key, BIGQUERY_SCOPE);
  const retried = answer.status === 401 ? { ...answer, retryable: true } : answer;
  return withVerdicts(retried, chunk, rowVerdicts(retried, chunk.accepted.length));
}

export const bigQueryStream = defineDestinationCode<typeof bigQueryStreamDefinition>({
  delivery: 'server',
  throttled: bigQueryThrottled,
  serverBatch: {
    maxEvents: MAX_ROWS,
    async deliver(messages, c, context) {
      const chunk = sortChunk(messages, rowOf);
      return chunk.accepted.length === 0 ? nothingToSend(chunk.verdicts) : insertAll(chunk, c, context);
    },
  },
});
