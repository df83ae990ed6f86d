import { bigQueryStream } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { googleServerPerTest } from '../../support/google-service-account';
import { chunkContext, trackOf } from '../../support/server-batch';

/**
 * BigQuery streaming inserts against a local server playing Google's token endpoint and `tabledata.insertAll`
 * as its REST reference describes them.
 */
const google = googleServerPerTest();

const INSERT_PATH = '/bigquery/v2/projects/weir-project/datasets/events/tables/orders/insertAll';
const configOf = (overrides: Record<string, unknown> = {}) =>
  bigQueryStream.config.parse({
    projectId: 'weir-project',
    datasetId: 'events',
    tableId: 'orders',
    credentials: google.tokens.keyText,
    baseUrl: google.server.url,
    ...overrides,
  });
const deliver = (messages: Parameters<NonNullable<typeof bigQueryStream.serverBatch>['deliver']>[0], config = configOf()) =>
  bigQueryStream.serverBatch!.deliver(messages, config, chunkContext());
const inserts = () => google.server.received.filter((r) => r.path === INSERT_PATH);

test('a chunk of track events is one insertAll call: a row per event, its properties, insertId the messageId', async () => {
  google.server.on(INSERT_PATH, json(200, { kind: 'bigquery#tableDataInsertAllResponse' }));
  const identify = { type: 'identify', messageId: 'm-id', userId: 'u9', traits: { plan: 'pro' } };
  const result = await deliver([trackOf(1, 'u1', { revenue: 12.5, sku: 'A-1' }), identify, trackOf(2, 'u2', { revenue: 3 })]);

  expect(inserts()).toHaveLength(1);
  const [call] = inserts();
  expect(call!.method).toBe('POST');
  expect(call!.headers.authorization).toBe('Bearer ya29.test-1');
  expect(call!.json).toEqual({
    kind: 'bigquery#tableDataInsertAllRequest',
    skipInvalidRows: false,
    ignoreUnknownValues: false,
    rows: [
      { insertId: 'm-1', json: { revenue: 12.5, sku: 'A-1' } },
      { insertId: 'm-2', json: { revenue: 3 } },
    ],
  });
  expect(google.tokens.issued).toEqual([{ token: 'ya29.test-1', scope: 'https://www.googleapis.com/auth/bigquery.insertdata' }]);
  expect(result.status).toBe(200);
  expect(result.verdicts).toEqual([{ kind: 'delivered' }, { kind: 'refused', error: expect.stringMatching(/track events; identify/) }, { kind: 'delivered' }]);
});

test('the access token is kept until it expires: two chunks ask the token endpoint once', async () => {
  await deliver([trackOf(1)]);
  await deliver([trackOf(2)]);
  expect(google.server.received.filter((r) => r.path === '/token')).toHaveLength(1);
  expect(inserts().map((r) => r.headers.authorization)).toEqual(['Bearer ya29.test-1', 'Bearer ya29.test-1']);
});

test('insertErrors name the rows: invalid ones are refused, the stopped ones retried, the others delivered', async () => {
  google.server.on(
    INSERT_PATH,
    json(200, {
      kind: 'bigquery#tableDataInsertAllResponse',
      insertErrors: [
        { index: 1, errors: [{ reason: 'invalid', location: 'revenue', message: 'Cannot convert value to floating point.' }] },
        { index: 0, errors: [{ reason: 'stopped', message: '' }] },
        { index: 3, errors: [{ reason: 'stopped', message: '' }] },
      ],
    }),
  );
  // Event 2 (a page) is not sent, so rows 0..3 of the request are events 0, 1, 3, 4 of the chunk.
  const page = { type: 'page', messageId: 'm-p', userId: 'u1' };
  const result = await deliver([trackOf(1), trackOf(2, 'u2', { revenue: 'lots' }), page, trackOf(3), trackOf(4)]);
  expect(result.verdicts).toEqual([
    { kind: 'retryable', error: 'stopped' },
    { kind: 'refused', error: 'invalid: Cannot convert value to floating point.' },
    { kind: 'refused', error: expect.stringMatching(/page is not sent/) },
    { kind: 'delivered' },
    { kind: 'retryable', error: 'stopped' },
  ]);
});

test.each([
  [429, 'retryable'],
  [503, 'retryable'],
  [404, 'refused'],
])('an answer %i about the whole request makes every sent event %s', async (status, kind) => {
  google.server.on(INSERT_PATH, json(status, { error: { code: status, message: 'no' } }));
  const result = await deliver([trackOf(1), trackOf(2)]);
  expect(result.status).toBe(status);
  expect(result.verdicts!.map((v) => v.kind)).toEqual([kind, kind]);
});

test('a 401 is retried with a new token: the cached one is forgotten', async () => {
  google.server.on(INSERT_PATH, json(401, { error: { code: 401, message: 'Request had invalid authentication credentials.' } }));
  const first = await deliver([trackOf(1)]);
  expect(first.verdicts).toEqual([{ kind: 'retryable', error: 'answered 401' }]);
  google.server.on(INSERT_PATH, json(200, {}));
  expect((await deliver([trackOf(1)])).verdicts).toEqual([{ kind: 'delivered' }]);
  expect(google.tokens.issued.map((t) => t.token)).toEqual(['ya29.test-1', 'ya29.test-2']);
  expect(inserts().map((r) => r.headers.authorization)).toEqual(['Bearer ya29.test-1', 'Bearer ya29.test-2']);
});

test('a key the token endpoint refuses, or no key at all, refuses the chunk and inserts nothing', async () => {
  const key = JSON.parse(google.tokens.keyText) as Record<string, string>;
  const otherKey = JSON.stringify({ ...key, client_email: 'someone-else@example.iam.gserviceaccount.com' });
  const refused = await deliver([trackOf(1)], configOf({ credentials: otherKey }));
  expect(refused).toMatchObject({ status: 400, retryable: false, response: { error: 'invalid_grant' } });
  expect(refused.verdicts).toEqual([{ kind: 'refused', error: expect.stringMatching(/token endpoint .* answered 400/) }]);

  const notAKey = await deliver([trackOf(1)], configOf({ credentials: '{"client_email": "x"}' }));
  expect(notAKey).toMatchObject({ status: 400, error: 'credentials: private_key: Invalid input: expected string, received undefined' });
  expect(inserts()).toHaveLength(0);
});

test('the SSRF guard applies: a private address not allow-listed is refused before anything is sent', async () => {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '';
  const result = await deliver([trackOf(1)]);
  expect(result).toMatchObject({ status: 403, retryable: false });
  expect(google.server.received).toHaveLength(0);
});

test('chunks hold at most the 500 rows Google recommends per request', () => {
  expect(bigQueryStream.serverBatch!.maxEvents).toBe(500);
});
