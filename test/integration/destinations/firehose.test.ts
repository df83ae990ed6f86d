import { firehose } from '../../support/destination-types';
import type { Message } from '../../../shared/destinations/types';
import { startFirehoseServer, type FirehoseServer } from '../../support/firehose-server';
import { allowLocalAddresses, chunkContext, trackOf } from '../../support/server-batch';

/** Firehose PutRecordBatch through the AWS SDK, against a local server speaking Firehose's JSON protocol. */
let fake: FirehoseServer;
allowLocalAddresses();
beforeEach(async () => (fake = await startFirehoseServer({ accessKeyId: 'AKIDWEIR', region: 'eu-west-1', streams: ['weir-events'] })));
afterEach(() => fake.close());

const keys = { FH_KEY_ID: 'AKIDWEIR', FH_SECRET: 'secret-key' };
const configOf = (overrides: Record<string, unknown> = {}) =>
  firehose.config.parse({
    deliveryStreamName: 'weir-events',
    region: 'eu-west-1',
    accessKeyIdCredential: 'FH_KEY_ID',
    secretAccessKeyCredential: 'FH_SECRET',
    endPoint: fake.url,
    ...overrides,
  });
const deliver = (messages: Message[], config = configOf(), credentials: Record<string, string> = keys) =>
  firehose.serverBatch!.deliver(messages, config, chunkContext({ credentials: async () => credentials }));
const parsed = (put: { records: string[] }) => put.records.map((r) => JSON.parse(r) as Message);

test('a chunk is one PutRecordBatch: a record per event, its JSON and a newline', async () => {
  const events = [trackOf(1), { type: 'identify', messageId: 'm-id', userId: 'u1', traits: { plan: 'pro' } }];
  const result = await deliver(events);
  expect(result).toMatchObject({ status: 200, retryable: false, response: { failedPutCount: 0, records: 2 } });
  expect(result.verdicts).toEqual([{ kind: 'delivered' }, { kind: 'delivered' }]);
  expect(fake.puts).toHaveLength(1);
  expect(fake.puts[0]!.deliveryStreamName).toBe('weir-events');
  expect(fake.puts[0]!.records.every((r) => r.endsWith('}\n'))).toBe(true);
  expect(parsed(fake.puts[0]!)).toEqual(events);
});

test('records Firehose names in RequestResponses with an ErrorCode are retryable; the others delivered', async () => {
  fake.failRecord((data) => (data.includes('"m-2"') || data.includes('"m-4"') ? 'ServiceUnavailableException' : undefined));
  const result = await deliver([1, 2, 3, 4].map((n) => trackOf(n)));
  expect(result.status).toBe(200);
  expect(result.response).toEqual({ failedPutCount: 2, records: 4 });
  expect(result.verdicts).toEqual([
    { kind: 'delivered' },
    { kind: 'retryable', error: 'ServiceUnavailableException: Slow down.' },
    { kind: 'delivered' },
    { kind: 'retryable', error: 'ServiceUnavailableException: Slow down.' },
  ]);
});

test('a chunk over 4 MiB goes in several calls; an event over 1,000 KiB is refused alone', async () => {
  const big = (n: number) => trackOf(n, `u${n}`, { blob: 'x'.repeat(900 * 1024) });
  const huge = trackOf(99, 'u99', { blob: 'x'.repeat(1000 * 1024) });
  const result = await deliver([big(1), big(2), huge, big(3), big(4), big(5), trackOf(6)]);
  expect(fake.puts.map((p) => p.records.length)).toEqual([4, 2]);
  expect(fake.puts.flatMap(parsed).map((m) => m.messageId)).toEqual(['m-1', 'm-2', 'm-3', 'm-4', 'm-5', 'm-6']);
  expect(result.verdicts!.map((v) => v.kind)).toEqual(['delivered', 'delivered', 'refused', 'delivered', 'delivered', 'delivered', 'delivered']);
});

test.each([
  ['ServiceUnavailableException', 503, 'retryable'],
  ['InvalidKMSResourceException', 400, 'refused'],
])('an error answer about the call (%s, %i) makes its records %s', async (type, status, kind) => {
  const failure = { status, type, message: 'no' };
  fake.failCalls(failure);
  const result = await deliver([trackOf(1), trackOf(2)]);
  expect(result).toMatchObject({ status: failure.status, retryable: kind === 'retryable', error: expect.stringContaining(failure.type) });
  expect(result.verdicts!.map((v) => v.kind)).toEqual([kind, kind]);
});

test('a delivery stream that does not exist refuses the chunk', async () => {
  const result = await deliver([trackOf(1)], configOf({ deliveryStreamName: 'nope' }));
  expect(result).toMatchObject({ status: 400, retryable: false, error: expect.stringContaining('ResourceNotFoundException') });
});

test("the keys come from the workspace's credentials: one missing refuses the chunk and nothing is sent", async () => {
  const result = await deliver([trackOf(1)], configOf(), { FH_KEY_ID: 'AKIDWEIR' });
  expect(result).toMatchObject({ status: 400, retryable: false, error: 'Firehose: no workspace credential FH_SECRET' });
  expect(fake.server.received).toHaveLength(0);
});

test('the endpoint goes through the SSRF guard: a private address not allow-listed is refused', async () => {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '';
  const result = await deliver([trackOf(1)]);
  expect(result).toMatchObject({ status: 403, retryable: false, error: expect.stringMatching(/non-public address/) });
  expect(fake.server.received).toHaveLength(0);
});

test('no answer within the time-out leaves the chunk retryable', async () => {
  fake.server.on('/', () => undefined);
  process.env.WEIR_DESTINATION_TIMEOUT_MS = '300';
  try {
    expect(await deliver([trackOf(1)])).toMatchObject({ status: 504, retryable: true, verdicts: [{ kind: 'retryable' }] });
  } finally {
    delete process.env.WEIR_DESTINATION_TIMEOUT_MS;
  }
});
