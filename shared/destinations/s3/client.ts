import http from 'node:http';
import https from 'node:https';
import type { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { allowlistFromEnv } from '../../outbound/allowlist';
import { OutboundError, parseOutboundUrl, vetUrl, withoutAddress, type VettedTarget } from '../../outbound/guard';
import { vettingLookup } from '../../outbound/lookup';
import { DESTINATION_TIMEOUT_ENV, DESTINATION_TIMEOUT_MS, isRetryableStatus } from '../http-client';
import type { DeliveryResult } from '../types';

/** Where and as whom an object is written. */
export interface S3Target {
  bucket: string;
  region: string;
  /** An S3-compatible store (MinIO, R2, …), addressed path-style; undefined: AWS itself. */
  endPoint?: string;
  accessKeyId: string;
  secretAccessKey: string;
}

/** Every S3 call is bounded by the destination time-out (`WEIR_DESTINATION_TIMEOUT_MS`, 10 s). */
function timeoutMs(): number {
  const configured = Number(process.env[DESTINATION_TIMEOUT_ENV]);
  return Number.isInteger(configured) && configured > 0 ? configured : DESTINATION_TIMEOUT_MS;
}

/** S3's error codes that ask for another try although their status is a 4xx. */
const RETRY_CODES = new Set(['RequestTimeout', 'SlowDown', 'Throttling', 'ThrottlingException', 'TooManyRequests', 'RequestLimitExceeded']);
const REFUSED_ADDRESS = new Set(['blocked_address', 'blocked_resolution', 'invalid_url', 'invalid_protocol']);

interface SdkError extends Error {
  Code?: string;
  code?: string;
  cause?: unknown;
  $metadata?: { httpStatusCode?: number };
}

function outboundErrorOf(error: unknown): OutboundError | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = (e as SdkError).cause, depth++) if (e instanceof OutboundError) return e;
  return undefined;
}

/**
 * What a failed S3 call comes to. An answer's status decides (5xx, 429, 408 and S3's throttling codes may
 * pass later; AccessDenied, NoSuchBucket, a bad key and any other 4xx will not); without an answer, an
 * address the SSRF guard refused is final (403), a time-out (504) or a network failure (502) is not, its text
 * naming the hosts `vetted` as given rather than the addresses connected to.
 */
function s3Failure(error: unknown, vetted: VettedTarget[] = []): DeliveryResult {
  const e = error as SdkError;
  const status = e.$metadata?.httpStatusCode;
  const code = e.Code ?? e.name;
  if (status !== undefined) {
    const text = `S3 answered ${status} ${code}: ${e.message}`.slice(0, 500);
    return { status, response: { code, message: e.message }, error: text, retryable: isRetryableStatus(status) || RETRY_CODES.has(code) };
  }
  const refused = outboundErrorOf(error);
  if (refused)
    return { status: REFUSED_ADDRESS.has(refused.code) ? 403 : 502, response: '', error: refused.message, retryable: !REFUSED_ADDRESS.has(refused.code) };
  const timedOut = e.name === 'TimeoutError' || e.name === 'AbortError' || e.code === 'ETIMEDOUT';
  const text = vetted.reduce((message, target) => withoutAddress(message, target), e.message || code);
  return { status: timedOut ? 504 : 502, response: '', error: `S3 request failed: ${text}`, retryable: true };
}

async function clientFor(target: S3Target, ms: number, vetted: VettedTarget[]): Promise<{ client: S3Client; PutObjectCommand: typeof PutObjectCommand }> {
  // The SDK's S3 client is loaded by the first delivery to an S3 destination, not by every function that knows the type.
  const sdk = await import('@aws-sdk/client-s3');
  // Every connection, to AWS or to a configured store, goes to an address the SSRF guard vetted.
  const lookup = vettingLookup(allowlistFromEnv(), vetted);
  const client = new sdk.S3Client({
    region: target.region,
    endpoint: target.endPoint,
    forcePathStyle: target.endPoint !== undefined,
    credentials: { accessKeyId: target.accessKeyId, secretAccessKey: target.secretAccessKey },
    // One attempt: parking and retrying is delivery's job, and a time-out must bound the whole call.
    maxAttempts: 1,
    // A checksum only where S3 requires one: S3-compatible stores do not all read the SDK's trailing checksums.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    requestHandler: {
      httpAgent: new http.Agent({ lookup }),
      httpsAgent: new https.Agent({ lookup }),
      connectionTimeout: ms,
      requestTimeout: ms,
    },
  });
  return { client, PutObjectCommand: sdk.PutObjectCommand };
}

/** Writes one object (replacing any of the same key). Never throws. */
export async function putObject(target: S3Target, key: string, body: Buffer): Promise<DeliveryResult> {
  const ms = timeoutMs();
  const vetted: VettedTarget[] = [];
  const { client, PutObjectCommand: Put } = await clientFor(target, ms, vetted);
  try {
    // A host name is vetted by the lookup when connecting; an IP literal is never looked up, so it is vetted here.
    if (target.endPoint) await vetUrl(parseOutboundUrl(target.endPoint), allowlistFromEnv());
    const command = new Put({
      Bucket: target.bucket,
      Key: key,
      Body: body,
      ContentType: 'application/x-ndjson',
      ContentEncoding: 'gzip',
    });
    const answer = await client.send(command, { abortSignal: AbortSignal.timeout(ms) });
    return {
      status: answer.$metadata.httpStatusCode ?? 200,
      response: { bucket: target.bucket, key, bytes: body.length, etag: answer.ETag },
      retryable: false,
    };
  } catch (error) {
    return s3Failure(error, vetted);
  } finally {
    client.destroy();
  }
}
