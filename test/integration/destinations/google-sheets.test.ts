import { googleSheets } from '../../support/destination-types';
import { json } from '../../support/destination-server';
import { googleServerPerTest } from '../../support/google-service-account';
import { chunkContext, trackOf } from '../../support/server-batch';

/** Google Sheets `spreadsheets.values.append` against a local server playing the token endpoint and the API. */
const google = googleServerPerTest();

const SHEET = "Q4 'orders'";
// The range in the path is the quoted sheet name, percent-encoded: 'Q4 ''orders'''
const APPEND_PATH = `/v4/spreadsheets/sheet-123/values/${encodeURIComponent("'Q4 ''orders'''")}:append`;
const configOf = (overrides: Record<string, unknown> = {}) =>
  googleSheets.config.parse({
    credentials: google.tokens.keyText,
    sheetId: 'sheet-123',
    sheetName: SHEET,
    baseUrl: google.server.url,
    eventKeyMap: [
      { from: 'revenue', to: 'Revenue' },
      { from: 'plan', to: 'Plan' },
      { from: 'event', to: 'Event' },
      { from: 'items', to: 'Items' },
      { from: 'paid', to: 'Paid' },
    ],
    ...overrides,
  });
const deliver = (messages: Parameters<NonNullable<typeof googleSheets.serverBatch>['deliver']>[0], config = configOf()) =>
  googleSheets.serverBatch!.deliver(messages, config, chunkContext());

test('a chunk is one append of raw rows: messageId, then the eventKeyMap columns in order', async () => {
  const identify = { type: 'identify', messageId: 'm-id', userId: 'u9', traits: { plan: 'pro' } };
  const result = await deliver([trackOf(1, 'u1', { revenue: 12.5, items: [{ sku: 'A' }], paid: true }), identify]);

  const appends = google.server.received.filter((r) => r.path.endsWith(':append'));
  expect(appends).toHaveLength(1);
  const [call] = appends;
  expect(call!.path).toBe(APPEND_PATH);
  expect(call!.query).toEqual({ valueInputOption: 'RAW', insertDataOption: 'INSERT_ROWS' });
  expect(call!.headers.authorization).toBe('Bearer ya29.test-1');
  expect(call!.json).toEqual({
    range: "'Q4 ''orders'''",
    majorDimension: 'ROWS',
    values: [
      ['m-1', 12.5, '', 'Order Completed', '[{"sku":"A"}]', true],
      ['m-id', '', 'pro', '', '', ''],
    ],
  });
  expect(google.tokens.issued).toEqual([{ token: 'ya29.test-1', scope: 'https://www.googleapis.com/auth/spreadsheets' }]);
  expect(result.verdicts).toEqual([{ kind: 'delivered' }, { kind: 'delivered' }]);
});

test('without eventKeyMap a row is the messageId alone; an event without one is refused on its own', async () => {
  const result = await deliver([trackOf(1), { type: 'track', event: 'x', userId: 'u1' }], configOf({ eventKeyMap: undefined }));
  expect(google.server.received.find((r) => r.path === APPEND_PATH)!.json).toMatchObject({ values: [['m-1']] });
  expect(result.verdicts).toEqual([{ kind: 'delivered' }, { kind: 'refused', error: 'an event needs a messageId (the first column)' }]);
});

test.each([
  [429, 'retryable'],
  [500, 'retryable'],
  [400, 'refused'],
])('an answer %i is about the whole append: every row is %s', async (status, kind) => {
  google.server.on(APPEND_PATH, json(status, { error: { code: status, message: 'Unable to parse range', status: 'INVALID_ARGUMENT' } }));
  const result = await deliver([trackOf(1), trackOf(2)]);
  expect(result.status).toBe(status);
  expect(result.verdicts!.map((v) => v.kind)).toEqual([kind, kind]);
});

test('a 401 forgets the token, so the next chunk asks for a new one', async () => {
  google.server.on(APPEND_PATH, json(401, { error: { code: 401 } }));
  expect((await deliver([trackOf(1)])).verdicts).toEqual([{ kind: 'retryable', error: 'answered 401' }]);
  google.server.on(APPEND_PATH, json(200, {}));
  await deliver([trackOf(1)]);
  expect(google.tokens.issued.map((t) => t.token)).toEqual(['ya29.test-1', 'ya29.test-2']);
});

test('the SSRF guard applies to the sheet API and the token endpoint alike', async () => {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '';
  expect(await deliver([trackOf(1)])).toMatchObject({ status: 403, retryable: false });
  expect(google.server.received).toHaveLength(0);
});
