import { gunzipSync } from 'node:zlib';
import type { APIGatewayProxyEvent } from 'aws-lambda';
import { MAX_BODY_BYTES } from '../contract/functions';
import { PayloadTooLargeError, ValidationError } from '../domain/errors';

const isGzip = (bytes: Buffer) => bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;

/**
 * The request body as bytes: base64 decoded when API Gateway encoded it, gunzipped when it is gzip whatever
 * its content type says (SDKs label gzip bodies in several ways), and never larger than `limit` bytes.
 */
export function readBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>, limit = MAX_BODY_BYTES): Buffer | undefined {
  if (event.body === null || event.body === undefined || event.body === '') return undefined;
  let bytes = Buffer.from(event.body, event.isBase64Encoded ? 'base64' : 'utf8');
  if (bytes.length > limit) throw new PayloadTooLargeError(`request body is larger than ${limit} bytes`);
  if (isGzip(bytes)) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: limit });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') {
        throw new PayloadTooLargeError(`request body is larger than ${limit} bytes once decompressed`);
      }
      throw new ValidationError('body: gzip data is corrupt');
    }
  }
  return bytes;
}

/** The request body parsed as JSON; undefined when there is none. */
export function readJsonBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>, limit?: number): unknown {
  const bytes = readBody(event, limit);
  if (!bytes) return undefined;
  const text = bytes.toString('utf8');
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`body: malformed JSON (${(error as Error).message})`);
  }
}
