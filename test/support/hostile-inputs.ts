import { gzipSync } from 'node:zlib';
import * as z from 'zod';
import type { RouteDefinition } from '../../shared/contract/routes';

/**
 * Bad inputs for one route of the manifest, generated from what the route reads: its path parameters, its
 * query parameters, its body (from a sample body the test gives per route) and its credentials. Every case
 * is one the route must refuse; `accepted` marks the few the reference answers with 200 (see the test).
 */
export interface HostileCase {
  name: string;
  path: Record<string, string>;
  query?: string;
  body?: string | Buffer;
  headers?: Record<string, string>;
  /** Leave the route's good credentials out (the case brings its own Authorization). */
  auth?: string;
}

/** A valid body for the route, and where its fields must be refused with a wrong type. */
export interface BodySample {
  body: Record<string, unknown>;
  /** Per field, a value of the wrong type the route refuses (default: one derived from the sample's value). */
  wrongTypes?: Record<string, unknown>;
  /** Further bodies (or raw JSON texts) that must be refused, for places the generic mutations do not reach. */
  extra?: (Record<string, unknown> | string)[];
  /** Headers the route reads, each set to a value it must refuse. */
  headers?: Record<string, string>[];
}

const DEEP = 100_000;
/** Nested 100,000 levels deep: a few hundred KB of brackets. */
export const deepArray = '['.repeat(DEEP) + ']'.repeat(DEEP);
/** Deeper than DynamoDB's 32 nesting levels, shallower than anything that breaks a call stack. */
export const nested = (levels: number): Record<string, unknown> => {
  let value: Record<string, unknown> = {};
  for (let i = 0; i < levels; i++) value = { a: value };
  return value;
};
/** Over DynamoDB's 2,048-byte partition and 1,024-byte sort-key limits, in bytes and in characters. */
export const HUGE_ASCII = 'x'.repeat(10_240);
export const HUGE_EMOJI = '\u{1F600}'.repeat(700);
export const QUOTES = `x' OR '1'='1"; DROP TABLE weir; --`;
const LONE_SURROGATE = 'a\ud800b';

/**
 * Values that are no string and no number, as raw JSON: objects whose keys would trip a String() or a
 * template literal of them (`{toString: "x"}` makes `String(value)` throw), arrays, nested objects, and a
 * number JSON.parse reads as Infinity. Each must be taken as data or refused with a 4xx naming its field.
 */
export const TYPE_CONFUSIONS: [string, string][] = [
  ['an object with a toString key', '{"toString":"x"}'],
  ['an object with a valueOf key', '{"valueOf":"x"}'],
  ['an object with toString and valueOf keys', '{"toString":"x","valueOf":1}'],
  ['an object with a constructor and a __proto__ key', '{"constructor":"x","__proto__":{"toString":"y"}}'],
  ['an object with Symbol.toPrimitive spelled out', '{"Symbol(Symbol.toPrimitive)":"x","toJSON":"y"}'],
  ['an array', '["u1","u2"]'],
  ['an array holding such an object', '[{"toString":"x"}]'],
  ['a nested object', '{"id":{"toString":"x","valueOf":"y"}}'],
  ['true', 'true'],
  ['1e999 (Infinity once parsed)', '1e999'],
];

/** A pixel's query giving `field` an object shape (dotted keys nest): the type confusions a query can make. */
export const pixelTypeConfusions = (field: string): [string, string][] => [
  ['a toString key', `${field}.toString=x`],
  ['a valueOf key', `${field}.valueOf=x`],
  ['toString and valueOf keys', `${field}.toString=x&${field}.valueOf=y`],
  ['a nested object', `${field}.id.toString=x`],
];

const json = (value: unknown) => JSON.stringify(value);
/** A JSON text with one placeholder string replaced by raw JSON (too deep for JSON.stringify to write). */
const withRaw = (value: unknown, raw: string) => json(value).replace('"__RAW__"', raw);

const wrongTypeOf = (value: unknown): unknown => (typeof value === 'string' ? 42 : typeof value === 'object' && value !== null ? 'text' : 'text');

/** Every string leaf whose key names an id, replaced by `huge` (array items of an `...Ids` key too). */
function withHugeIds(value: unknown, huge: string, key = ''): unknown {
  const idLike = /(^id$|Id$|^key$|^name$|^writeKey$)/.test(key);
  if (typeof value === 'string') return idLike || /Ids$/.test(key) ? huge : value;
  if (Array.isArray(value)) return value.map((item) => withHugeIds(item, huge, key));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withHugeIds(v, huge, k)]));
  }
  return value;
}

/** Every string leaf with a lone surrogate in it, and one key too. */
function withLoneSurrogates(value: unknown): unknown {
  if (typeof value === 'string') return LONE_SURROGATE;
  if (Array.isArray(value)) return value.map(withLoneSurrogates);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withLoneSurrogates(v)]));
  return value;
}

/** gzip whose trailer states another size than the data has. */
function lyingGzip(data: Buffer, statedSize: number): Buffer {
  const zipped = gzipSync(data);
  zipped.writeUInt32LE(statedSize, zipped.length - 4);
  return zipped;
}

const queryFields = (schema: z.core.$ZodType | undefined) => {
  if (!schema) return [];
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { type?: string; enum?: unknown[] }>;
  };
  return Object.entries(json.properties ?? {}).map(([name, s]) => ({ name, freeText: s.type === 'string' && !s.enum }));
};

const base64 = (bytes: string | Buffer) => Buffer.from(bytes).toString('base64');

/** Credentials no route may let through: huge, quoted, SQL-looking, not UTF-8, not base64. */
export const HOSTILE_CREDENTIALS: [string, string][] = [
  ['a 10 KB Basic user', `Basic ${base64(`${HUGE_ASCII}:`)}`],
  ['a 10 KB Basic password', `Basic ${base64(`someone@example.com:${HUGE_ASCII}`)}`],
  ['a Basic user of 700 emoji', `Basic ${base64(`${HUGE_EMOJI}:`)}`],
  ['quotes and SQL in Basic', `Basic ${base64(`${QUOTES}:${QUOTES}`)}`],
  ['Basic bytes that are no UTF-8 (a lone surrogate)', `Basic ${base64(Buffer.from([0xed, 0xa0, 0x80, 0x3a]))}`],
  ['Basic that is no base64', 'Basic %%%not-base64%%%'],
  ['a 10 KB Bearer token', `Bearer ${HUGE_ASCII}`],
  ['quotes in a Bearer token', `Bearer ${QUOTES}`],
];

export function hostileCases(route: RouteDefinition, path: Record<string, string>, sample: BodySample | undefined, checksAuth: boolean): HostileCase[] {
  const cases: HostileCase[] = [];
  const goodBody = sample ? json(sample.body) : undefined;

  for (const name of Object.keys(path)) {
    for (const [label, value] of [
      ['10 KB', HUGE_ASCII],
      ['700 emoji', HUGE_EMOJI],
      ['quotes and SQL', QUOTES],
    ]) {
      cases.push({ name: `path ${name}: ${label}`, path: { ...path, [name]: encodeURIComponent(value!) }, body: goodBody });
    }
    cases.push({ name: `path ${name}: a lone surrogate, percent-encoded`, path: { ...path, [name]: '%ED%A0%80' }, body: goodBody });
  }

  for (const { name, freeText } of queryFields(route.query)) {
    cases.push({ name: `query ${name}: 10 KB`, path, query: `${name}=${HUGE_ASCII}`, body: goodBody });
    if (!freeText) cases.push({ name: `query ${name}: a wrong type`, path, query: `${name}=not-a-${name}`, body: goodBody });
  }

  if (checksAuth) {
    for (const [label, auth] of HOSTILE_CREDENTIALS) cases.push({ name: `credentials: ${label}`, path, auth, body: goodBody });
  }

  if (sample) {
    const { body } = sample;
    cases.push({ name: 'body: nested 100,000 levels deep', path, body: deepArray });
    for (const wrong of [42, 'text', null, true, []]) cases.push({ name: `body: ${json(wrong)} instead of an object`, path, body: json(wrong) });
    for (const field of Object.keys(body)) {
      cases.push({ name: `body.${field}: nested 100,000 levels deep`, path, body: withRaw({ ...body, [field]: '__RAW__' }, deepArray) });
      cases.push({ name: `body.${field}: nested 40 levels deep`, path, body: json({ ...body, [field]: nested(40) }) });
      const wrong = sample.wrongTypes ? sample.wrongTypes[field] : wrongTypeOf(body[field]);
      if (!sample.wrongTypes || field in sample.wrongTypes) cases.push({ name: `body.${field}: a wrong type`, path, body: json({ ...body, [field]: wrong }) });
    }
    cases.push({
      name: 'body: lone surrogates in every string and a key',
      path,
      body: json({ ...(withLoneSurrogates(body) as object), '\udc00': 1 }),
    });
    for (const [label, huge] of [
      ['10 KB', HUGE_ASCII],
      ['700 emoji', HUGE_EMOJI],
    ] as const) {
      const mutated = withHugeIds(body, huge);
      if (json(mutated) !== goodBody) cases.push({ name: `body: ids of ${label}`, path, body: json(mutated) });
    }
    cases.push({ name: 'body: gzip stating a smaller size than it holds', path, body: lyingGzip(Buffer.from(goodBody!), 3) });
    cases.push({ name: 'body: a gzip bomb (8 MB) stating 100 bytes', path, body: lyingGzip(Buffer.alloc(8 * 1024 * 1024, 32), 100) });
    cases.push({ name: 'body: gzip cut short', path, body: gzipSync(Buffer.from(goodBody!)).subarray(0, 20) });
    for (const headers of sample.headers ?? []) cases.push({ name: `header ${Object.keys(headers).join()}`, path, body: goodBody, headers });
    (sample.extra ?? []).forEach((extra, i) => cases.push({ name: `body: extra case ${i}`, path, body: typeof extra === 'string' ? extra : json(extra) }));
  }
  return cases;
}

export { withRaw };
