import { FirehoseClient, PutRecordBatchCommand, type PutRecordBatchCommandOutput } from '@aws-sdk/client-firehose';
import type { HttpRequest, HttpResponse } from '@smithy/types';
import { guardedFetch, OutboundError } from '../../outbound/guard';
import { destinationTimeoutMs, isRetryableStatus } from '../http-client';
import type { DeliveryResult } from '../types';

/** Where and as whom records are put. */
export interface FirehoseTarget {
  deliveryStreamName: string;
  region: string;
  /** A Firehose-compatible endpoint instead of AWS's regional one. */
  endPoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
}

const MAX_RESPONSE_BYTES = 1024 * 1024;
const REFUSED_ADDRESS = new Set(['blocked_address', 'blocked_resolution', 'invalid_url', 'invalid_protocol', 'url_required']);
const STATUS_WITHOUT_ANSWER: Record<string, number> = { timeout: 504 };

/**
 * The SDK's HTTP handler replaced by the SSRF guard's fetch: the regional AWS endpoint or a configured one
 * is vetted, pinned, bounded in time and answer size like every other destination request.
 */
const guardedHandler = {
  metadata: { handlerProtocol: 'http/1.1' },
  async handle(request: HttpRequest): Promise<{ response: HttpResponse }> {
    const query = new URLSearchParams();
    for (const [key, value] of Object.entries(request.query ?? {})) for (const v of [value ?? []].flat()) query.append(key, v);
    const search = query.size > 0 ? `?${query}` : '';
    const url = `${request.protocol}//${request.hostname}${request.port ? `:${request.port}` : ''}${request.path}${search}`;
    const body = typeof request.body === 'string' || request.body instanceof Uint8Array ? request.body : undefined;
    const answer = await guardedFetch(
      url,
      { method: request.method, headers: request.headers, body },
      { timeoutMs: destinationTimeoutMs(), maxResponseBytes: MAX_RESPONSE_BYTES, maxRedirects: 0 },
    );
    return { response: { statusCode: answer.status, headers: answer.headers, body: Buffer.from(answer.bodyText) } };
  },
  updateHttpClientConfig: () => undefined,
  httpHandlerConfigs: () => ({}),
  destroy: () => undefined,
};

interface SdkError extends Error {
  $metadata?: { httpStatusCode?: number };
  $fault?: 'client' | 'server';
}

/**
 * What a failed call comes to: an answer's status decides (5xx and 429 may pass later; a missing stream,
 * refused keys or an invalid argument will not); without an answer, a refused address is final, a time-out or
 * network failure is not.
 */
function firehoseFailure(error: unknown): DeliveryResult {
  const e = error as SdkError;
  const status = e.$metadata?.httpStatusCode;
  if (status !== undefined) {
    return {
      status,
      response: { code: e.name, message: e.message },
      error: `Firehose answered ${status} ${e.name}: ${e.message}`.slice(0, 500),
      retryable: isRetryableStatus(status),
    };
  }
  if (e instanceof OutboundError) {
    const refused = REFUSED_ADDRESS.has(e.code);
    return { status: refused ? 403 : (STATUS_WITHOUT_ANSWER[e.code] ?? 502), response: '', error: e.message, retryable: !refused };
  }
  return { status: 502, response: '', error: `Firehose request failed: ${e.message || e.name}`, retryable: true };
}

export type PutOutcome = { ok: true; output: PutRecordBatchCommandOutput } | { ok: false; result: DeliveryResult };

/** One PutRecordBatch call (one attempt: parking and retrying is delivery's job). Never throws. */
export async function putRecordBatch(target: FirehoseTarget, records: Uint8Array[]): Promise<PutOutcome> {
  const client = new FirehoseClient({
    region: target.region,
    endpoint: target.endPoint,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    maxAttempts: 1,
    requestHandler: guardedHandler,
  });
  try {
    const output = await client.send(new PutRecordBatchCommand({ DeliveryStreamName: target.deliveryStreamName, Records: records.map((Data) => ({ Data })) }));
    return { ok: true, output };
  } catch (error) {
    return { ok: false, result: firehoseFailure(error) };
  } finally {
    client.destroy();
  }
}
