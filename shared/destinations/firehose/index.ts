import { nothingToSend, sortChunk, withVerdicts } from '../chunk-verdicts';
import type { ChunkEventVerdict, DeliveryResult, Message, ServerBatchContext, ServerBatchResult } from '../types';
import { defineDestinationCode } from '../types';
import { type FirehoseTarget, putRecordBatch } from './client';
import type { FirehoseConfig, firehoseDefinition } from './definition';

/** PutRecordBatch's limits: 500 records and 4 MiB a call, 1,000 KiB a record (before base64). */
const MAX_RECORDS = 500;
const MAX_CALL_BYTES = 4 * 1024 * 1024;
const MAX_RECORD_BYTES = 1000 * 1024;

type Config = FirehoseConfig;

/** One event as a record: its JSON and a newline, so the objects Firehose writes hold one event a line. */
export function recordOf(message: Message): Uint8Array | { refused: string } {
  const data = Buffer.from(`${JSON.stringify(message)}\n`);
  return data.length > MAX_RECORD_BYTES ? { refused: `the event is larger than Firehose's ${MAX_RECORD_BYTES} bytes a record` } : data;
}

/** Consecutive records in calls of at most 500 records and 4 MiB. */
export function callsOf(records: Uint8Array[]): Uint8Array[][] {
  const calls: Uint8Array[][] = [];
  let bytes = 0;
  for (const record of records) {
    const last = calls.at(-1);
    if (!last || last.length === MAX_RECORDS || bytes + record.length > MAX_CALL_BYTES) {
      calls.push([record]);
      bytes = record.length;
    } else {
      last.push(record);
      bytes += record.length;
    }
  }
  return calls;
}

const refused = (error: string): ServerBatchResult => ({ status: 400, response: '', error, retryable: false });

/** The keys come from the workspace's credentials, never from the environment: a destination must not put with Weir's own role. */
async function targetOf(c: Config, context: ServerBatchContext): Promise<FirehoseTarget | ServerBatchResult> {
  let credentials: Record<string, string>;
  try {
    credentials = await context.credentials();
  } catch (error) {
    return { status: 503, response: '', error: `the workspace's credentials could not be read: ${(error as Error).message}`, retryable: true };
  }
  const accessKeyId = credentials[c.accessKeyIdCredential];
  const secretAccessKey = credentials[c.secretAccessKeyCredential];
  if (!accessKeyId || !secretAccessKey) {
    const missing = [accessKeyId ? '' : c.accessKeyIdCredential, secretAccessKey ? '' : c.secretAccessKeyCredential].filter(Boolean);
    return refused(`Firehose: no workspace credential ${missing.join(', ')}`);
  }
  return { deliveryStreamName: c.deliveryStreamName, region: c.region ?? 'us-east-1', endPoint: c.endPoint, accessKeyId, secretAccessKey };
}

/** Each record's verdict from one call: `RequestResponses[i]` with an ErrorCode was not put and may be put again. */
async function putCall(target: FirehoseTarget, records: Uint8Array[]): Promise<{ answer: DeliveryResult; verdicts: ChunkEventVerdict[] }> {
  const put = await putRecordBatch(target, records);
  if (!put.ok) {
    const { result } = put;
    const error = result.error ?? `answered ${result.status}`;
    return { answer: result, verdicts: records.map(() => (result.retryable ? { kind: 'retryable', error } : { kind: 'refused', error })) };
  }
  const responses = put.output.RequestResponses ?? [];
  const verdicts = records.map((_, i): ChunkEventVerdict => {
    const entry = responses[i];
    if (!entry) return { kind: 'retryable', error: 'Firehose gave no answer for this record' };
    return entry.ErrorCode ? { kind: 'retryable', error: `${entry.ErrorCode}: ${entry.ErrorMessage ?? ''}`.trim() } : { kind: 'delivered' };
  });
  const answer = { status: 200, response: { failedPutCount: put.output.FailedPutCount ?? 0, records: records.length }, retryable: false };
  return { answer, verdicts };
}

/**
 * Amazon Kinesis Data Firehose: a chunk's events become records of the destination's delivery stream, one
 * PutRecordBatch per 500 records or 4 MiB; Firehose's answer names each record, so each event has its verdict.
 */
export const firehose = defineDestinationCode<typeof firehoseDefinition>({
  delivery: 'server',
  serverBatch: {
    maxEvents: MAX_RECORDS,
    async deliver(messages, c, context) {
      const chunk = sortChunk(messages, recordOf);
      if (chunk.accepted.length === 0) return nothingToSend(chunk.verdicts);
      const target = await targetOf(c, context);
      if ('status' in target) return withVerdicts(target, chunk, () => ({ kind: target.retryable ? 'retryable' : 'refused', error: target.error ?? '' }));
      const sent: ChunkEventVerdict[] = [];
      let last: DeliveryResult = { status: 200, response: '', retryable: false };
      for (const call of callsOf(chunk.accepted.map(({ item }) => item))) {
        const { answer, verdicts } = await putCall(target, call);
        sent.push(...verdicts);
        // The first failed call's answer stands for the chunk; later calls still go, their events are their own.
        if (last.status === 200) last = answer;
      }
      return withVerdicts(last, chunk, (position) => sent[position]!);
    },
  },
});
