import { freePort } from '../../../infra/local/dynamodb-local';
import { s3 } from '../../support/destination-types';
import type { Message, ServerBatchContext } from '../../../shared/destinations/types';
import { startDestinationServer, silent, text, type DestinationServer } from '../../support/destination-server';
import { S3RVER_KEYS, startS3Server, type S3Server } from '../../support/s3-server';

/**
 * The S3 type against s3rver, a local S3-compatible store: a chunk becomes one gzipped JSON-lines object
 * under <prefix>/<sourceId>/<yyyy>/<mm>/<dd>/<hh>/, named by the chunk's key; the keys come from the
 * workspace's credentials. S3's error answers are played by a local HTTP server.
 */
const savedAllowlist = process.env.WEIR_OUTBOUND_ALLOWLIST;
const savedTimeout = process.env.WEIR_DESTINATION_TIMEOUT_MS;
let store: S3Server;
let fake: DestinationServer;

beforeAll(async () => {
  store = await startS3Server(['events', 'other']);
  fake = await startDestinationServer();
});
afterAll(async () => {
  await store?.stop();
  await fake?.close();
  for (const [name, saved] of [
    ['WEIR_OUTBOUND_ALLOWLIST', savedAllowlist],
    ['WEIR_DESTINATION_TIMEOUT_MS', savedTimeout],
  ] as const) {
    if (saved === undefined) delete process.env[name];
    else process.env[name] = saved;
  }
});
beforeEach(() => {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  process.env.WEIR_DESTINATION_TIMEOUT_MS = '1000';
  fake.received.length = 0;
});

const WORKSPACE_KEYS = { S3_KEY_ID: S3RVER_KEYS.accessKeyId, S3_SECRET: S3RVER_KEYS.secretAccessKey };
const context = (chunkKey: string, credentials: Record<string, string> = WORKSPACE_KEYS): ServerBatchContext => ({
  workspaceId: 'ws1',
  sourceId: 'src1',
  destinationId: 'dst1',
  chunkKey,
  credentials: () => Promise.resolve(credentials),
});
const config = (extra: Record<string, unknown> = {}) =>
  s3.config.parse({
    bucketName: 'events',
    endPoint: store.url,
    prefix: 'raw/',
    accessKeyIdCredential: 'S3_KEY_ID',
    secretAccessKeyCredential: 'S3_SECRET',
    ...extra,
  });
const event = (n: number, receivedAt: string, extra: Message = {}): Message => ({
  type: 'track',
  event: `Event ${n}`,
  messageId: `m${n}`,
  userId: 'ada',
  properties: { n, tags: ['a', 'b'], price: 9.5 },
  timestamp: '2020-01-01T00:00:00.000Z',
  receivedAt,
  ...extra,
});
const deliver = (messages: Message[], cfg = config(), ctx = context('c0ffee')) => s3.serverBatch!.deliver(messages, cfg, ctx);

describe('S3 objects', () => {
  it('writes a chunk as one gzipped JSON-lines object in the hour of its earliest receivedAt, named by the chunk key', async () => {
    const chunk = [event(1, '2026-03-04T05:59:59.000Z'), event(2, '2026-03-04T05:10:00.000Z'), event(3, '2026-03-04T06:00:01.000Z')];
    const result = await deliver(chunk, config(), context('k1'));
    expect(result).toMatchObject({ status: 200, retryable: false, response: { bucket: 'events', key: 'raw/src1/2026/03/04/05/k1.json.gz' } });
    expect(await store.objects('events')).toEqual({ 'raw/src1/2026/03/04/05/k1.json.gz': chunk });
  });

  it('overwrites its own object when the same chunk is sent again, in any order', async () => {
    const chunk = [event(4, '2026-03-05T10:00:00.000Z'), event(5, '2026-03-05T11:30:00.000Z')];
    const before = Object.keys(await store.objects('events')).length;
    expect((await deliver(chunk, config(), context('k2'))).status).toBe(200);
    expect((await deliver([...chunk].reverse(), config(), context('k2'))).status).toBe(200);
    const objects = await store.objects('events');
    expect(Object.keys(objects)).toHaveLength(before + 1);
    expect(objects['raw/src1/2026/03/05/10/k2.json.gz']).toEqual([...chunk].reverse());
  });

  it('files events without receivedAt by their timestamp, and writes at the bucket root without a prefix', async () => {
    const chunk = [{ type: 'identify', messageId: 'i1', userId: 'bo', traits: { plan: 'pro' }, timestamp: '2025-12-31T23:59:00Z' }];
    const result = await deliver(chunk, config({ bucketName: 'other', prefix: undefined }), context('k3'));
    expect(result.status).toBe(200);
    expect(await store.objects('other')).toEqual({ 'src1/2025/12/31/23/k3.json.gz': chunk });
  });
});

describe('S3 credentials and refusals', () => {
  const chunk = [event(9, '2026-03-06T00:00:00.000Z')];

  it('refuses, for good, a destination that names no credentials or a credential the workspace lacks', async () => {
    expect(await deliver(chunk, config({ accessKeyIdCredential: undefined }))).toMatchObject({
      status: 400,
      retryable: false,
      error: expect.stringContaining('accessKeyIdCredential and secretAccessKeyCredential'),
    });
    expect(await deliver(chunk, config(), context('k', { S3_KEY_ID: 'S3RVER' }))).toMatchObject({
      status: 400,
      retryable: false,
      error: 'S3: no workspace credential S3_SECRET',
    });
  });

  it('does not retry keys the store refuses (InvalidAccessKeyId) or a bucket that does not exist (NoSuchBucket)', async () => {
    const badKey = await deliver(chunk, config(), context('k', { S3_KEY_ID: 'WRONG', S3_SECRET: 'WRONG' }));
    expect(badKey).toMatchObject({ status: 403, retryable: false, error: expect.stringContaining('InvalidAccessKeyId') });
    const noBucket = await deliver(chunk, config({ bucketName: 'missing' }));
    expect(noBucket).toMatchObject({ status: 404, retryable: false, error: expect.stringContaining('NoSuchBucket') });
  });

  it('is refused by the SSRF guard, without a request, when the store is on a private address not allow-listed', async () => {
    delete process.env.WEIR_OUTBOUND_ALLOWLIST;
    expect(await deliver(chunk, config({ endPoint: fake.url }))).toMatchObject({
      status: 403,
      retryable: false,
      error: expect.stringContaining('non-public address: 127.0.0.1'),
    });
    expect(fake.received).toEqual([]);
  });
});

describe("S3's failures", () => {
  const chunk = [event(10, '2026-03-06T00:00:00.000Z')];
  const s3Error = (status: number, code: string) =>
    text(
      status,
      `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${code} here</Message><RequestId>r1</RequestId></Error>`,
      'application/xml',
    );
  const viaFake = () => config({ endPoint: `${fake.url}/s3` });

  it.each([
    [503, 'SlowDown', true],
    [500, 'InternalError', true],
    [400, 'RequestTimeout', true],
    [403, 'AccessDenied', false],
  ])('an answer %i %s is retryable: %s', async (status, code, retryable) => {
    fake.on('/s3', s3Error(status, code));
    expect(await deliver(chunk, viaFake())).toMatchObject({ status, retryable, error: expect.stringContaining(code) });
    expect(fake.received.map((r) => [r.method, r.path])).toEqual([['PUT', '/s3/events/raw/src1/2026/03/06/00/c0ffee.json.gz']]);
  });

  it('retries later when nothing listens, and when the store does not answer within the time-out', async () => {
    expect(await deliver(chunk, config({ endPoint: `http://127.0.0.1:${await freePort()}` }))).toMatchObject({ status: 502, retryable: true });
    fake.on('/s3', silent);
    const started = Date.now();
    expect(await deliver(chunk, viaFake())).toMatchObject({ status: 504, retryable: true });
    expect(Date.now() - started).toBeLessThan(3000);
  });
});
