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

/**
 * How deep a JSON body may nest: DynamoDB's own limit for stored maps, and far beyond any event an SDK sends.
 * Checked before anything recurses into the body (validation, JSON.stringify, the sandbox, the store).
 */
export const MAX_JSON_DEPTH = 32;

/** The request body parsed as JSON; undefined when there is none. */
export function readJsonBody(event: Pick<APIGatewayProxyEvent, 'body' | 'isBase64Encoded'>, limit?: number): unknown {
  const bytes = readBody(event, limit);
  if (!bytes) return undefined;
  const text = bytes.toString('utf8');
  if (!text.trim()) return undefined;
  let value: unknown;
  try {
    // V8 parses without recursing, so a body nested 100,000 levels deep reaches the bounds below intact.
    value = JSON.parse(text);
  } catch (error) {
    throw new ValidationError(`body: malformed JSON (${(error as Error).message})`);
  }
  checkJsonBounds(value, 'body');
  return value;
}

/** Is this string valid Unicode (no lone surrogate, which no store or encoder keeps as it was sent)? */
const wellFormed = (text: string): boolean => (text as string & { isWellFormed(): boolean }).isWellFormed();

/**
 * Refuses a parsed JSON value that nests deeper than MAX_JSON_DEPTH or holds a lone surrogate in a string
 * or key, naming where. Walks with its own stack, so no depth can overflow the call stack; the walk that
 * names the place runs only once something is found (a body that passes builds no paths).
 */
export function checkJsonBounds(root: unknown, where: string): void {
  if (!withinBounds(root)) namePlace(root, where);
}

function withinBounds(root: unknown): boolean {
  const values: unknown[] = [root];
  const depths: number[] = [0];
  while (values.length > 0) {
    const value = values.pop();
    const depth = depths.pop()!;
    if (typeof value === 'string') {
      if (!wellFormed(value)) return false;
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) return false;
    if (Array.isArray(value)) {
      for (const child of value) {
        values.push(child);
        depths.push(depth + 1);
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      if (!wellFormed(key)) return false;
      values.push((value as Record<string, unknown>)[key]);
      depths.push(depth + 1);
    }
  }
  return true;
}

function namePlace(root: unknown, where: string): void {
  const stack: { value: unknown; path: string; depth: number }[] = [{ value: root, path: where, depth: 0 }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value, path, depth } = next;
    if (typeof value === 'string') {
      if (!wellFormed(value)) throw new ValidationError(`${path}: holds a lone surrogate, not valid Unicode text`);
      continue;
    }
    if (value === null || typeof value !== 'object') continue;
    if (depth >= MAX_JSON_DEPTH) throw new ValidationError(`${path}: nested deeper than ${MAX_JSON_DEPTH} levels`);
    const entries = Array.isArray(value) ? value.map((v, i) => [String(i), v] as const) : Object.entries(value);
    for (const [key, child] of entries) {
      if (!wellFormed(key)) throw new ValidationError(`${path}: a key holds a lone surrogate, not valid Unicode text`);
      stack.push({ value: child, path: `${path}.${key}`, depth: depth + 1 });
    }
  }
}
