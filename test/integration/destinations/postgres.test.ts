import type { Client } from 'pg';
import { freePort } from '../../../infra/local/dynamodb-local';
import { postgres } from '../../support/destination-types';
import { endPostgresPools } from '../../../shared/destinations/postgres/connection';
import type { DeletionIO, Message, ServerBatchContext } from '../../../shared/destinations/types';
import { startPostgresServer, type PostgresServer } from '../../support/postgres-server';

/**
 * The POSTGRES type against a real PostgreSQL server started for the file: tables per event type and per
 * track event, columns from the flattened event with inferred types, type conflicts in their own columns,
 * rows keyed by messageId, `users` kept from identifies, user deletion across every table.
 */
const savedAllowlist = process.env.WEIR_OUTBOUND_ALLOWLIST;
let server: PostgresServer;
let db: Client;
let schemaCount = 0;
let schema: string;

beforeAll(async () => {
  server = await startPostgresServer();
  db = await server.connect();
}, 60_000);
afterAll(async () => {
  await endPostgresPools();
  await db?.end();
  await server?.stop();
  if (savedAllowlist === undefined) delete process.env.WEIR_OUTBOUND_ALLOWLIST;
  else process.env.WEIR_OUTBOUND_ALLOWLIST = savedAllowlist;
});
beforeEach(() => {
  process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  schema = `load_${++schemaCount}`;
});

const config = (extra: Record<string, unknown> = {}) =>
  postgres.config.parse({ host: server.host, port: server.port, database: server.database, user: server.user, password: server.password, schema, ...extra });
const context: ServerBatchContext = {
  workspaceId: 'ws1',
  sourceId: 'src1',
  destinationId: 'dst1',
  chunkKey: 'k',
  credentials: () => Promise.reject(new Error('the warehouse reads no workspace credentials')),
};
const deliver = (messages: Message[], cfg = config()) => postgres.serverBatch!.deliver(messages, cfg, context);
const io: DeletionIO = { send: () => Promise.reject(new Error('PostgreSQL deletion sends no HTTP requests')) };

const at = (minute: number) => `2026-03-04T05:${String(minute).padStart(2, '0')}:00.000Z`;
const base = (id: string, minute: number, userId = 'ada') => ({
  messageId: id,
  userId,
  anonymousId: 'anon-1',
  receivedAt: at(minute),
  timestamp: at(minute),
  context: { library: { name: 'weir-js' }, traits: { email: `${userId}@example.com` }, ip: '203.0.113.9' },
});
const track = (id: string, event: string, properties: Record<string, unknown>, minute = 0, userId = 'ada') => ({
  ...base(id, minute, userId),
  type: 'track',
  event,
  properties,
});
const identify = (id: string, traits: Record<string, unknown>, minute = 0, userId = 'ada') => ({ ...base(id, minute, userId), type: 'identify', traits });

async function columns(table: string): Promise<Record<string, string>> {
  const result = await db.query<{ column_name: string; data_type: string }>(
    'SELECT column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2',
    [schema, table],
  );
  return Object.fromEntries(result.rows.map((row) => [row.column_name, row.data_type]));
}
async function tables(): Promise<string[]> {
  const result = await db.query<{ table_name: string }>('SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name', [
    schema,
  ]);
  return result.rows.map((row) => row.table_name);
}
const rows = async (table: string, columnList = '*') => (await db.query(`SELECT ${columnList} FROM "${schema}"."${table}" ORDER BY id`)).rows;

describe('PostgreSQL tables and columns', () => {
  it('makes a table per event type and per track event, with snake_case columns of the inferred types', async () => {
    const chunk = [
      track('t1', 'Order Completed', {
        orderId: 'o-1',
        revenue: 12.5,
        itemCount: 3,
        gift: false,
        shippedAt: '2026-03-01T10:00:00Z',
        tags: ['a'],
        address: { zipCode: '12345' },
      }),
      identify('i1', { plan: 'pro', loginCount: 7 }),
      { ...base('p1', 1), type: 'page', name: 'Home', properties: { path: '/' } },
      { ...base('s1', 1), type: 'screen', name: 'Main', properties: { orientation: 'portrait' } },
      { ...base('g1', 1), type: 'group', groupId: 'acme', traits: { employees: 50 } },
      { ...base('a1', 1), type: 'alias', previousId: 'old-ada' },
    ];
    const result = await deliver(chunk);
    expect(result).toMatchObject({
      status: 200,
      retryable: false,
      response: { schema, rows: { tracks: 1, order_completed: 1, identifies: 1, users: 1, pages: 1 } },
    });
    expect(result.verdicts).toBeUndefined();
    expect(await tables()).toEqual(['aliases', 'groups', 'identifies', 'order_completed', 'pages', 'screens', 'tracks', 'users']);
    expect(await columns('order_completed')).toMatchObject({
      id: 'text',
      user_id: 'text',
      anonymous_id: 'text',
      received_at: 'timestamp with time zone',
      event: 'text',
      event_text: 'text',
      order_id: 'text',
      revenue: 'numeric',
      item_count: 'bigint',
      gift: 'boolean',
      shipped_at: 'timestamp with time zone',
      tags: 'text',
      address_zip_code: 'text',
      context_library_name: 'text',
      context_traits_email: 'text',
    });
    expect(await rows('order_completed', 'id, event, event_text, revenue, item_count, gift, tags, address_zip_code')).toEqual([
      {
        id: 't1',
        event: 'order_completed',
        event_text: 'Order Completed',
        revenue: '12.5',
        item_count: '3',
        gift: false,
        tags: '["a"]',
        address_zip_code: '12345',
      },
    ]);
    expect(Object.keys(await columns('tracks'))).not.toContain('revenue');
    expect(await rows('identifies', 'id, plan, login_count, context_traits_email')).toEqual([
      { id: 'i1', plan: 'pro', login_count: '7', context_traits_email: 'ada@example.com' },
    ]);
    expect(await rows('users', 'id, plan, email')).toEqual([{ id: 'ada', plan: 'pro', email: 'ada@example.com' }]);
    expect(await rows('groups', 'id, group_id, employees')).toEqual([{ id: 'g1', group_id: 'acme', employees: '50' }]);
    expect(await rows('aliases', 'id, previous_id, user_id')).toEqual([{ id: 'a1', previous_id: 'old-ada', user_id: 'ada' }]);
    expect(await rows('pages', 'id, name, path')).toEqual([{ id: 'p1', name: 'Home', path: '/' }]);
  });

  it('adds a column for a key it has not seen', async () => {
    await deliver([track('t1', 'Signed Up', { source: 'ad' })]);
    expect(Object.keys(await columns('signed_up'))).not.toContain('referrer_code');
    expect((await deliver([track('t2', 'Signed Up', { source: 'ad', referrerCode: 'R9' })])).status).toBe(200);
    expect(await columns('signed_up')).toMatchObject({ source: 'text', referrer_code: 'text' });
    expect(await rows('signed_up', 'id, referrer_code')).toEqual([
      { id: 't1', referrer_code: null },
      { id: 't2', referrer_code: 'R9' },
    ]);
  });

  it('keeps a value of another type in <column>_<type> instead of failing the load', async () => {
    await deliver([track('t1', 'Rated', { score: 4, label: 'good', at: '2026-03-01T00:00:00Z' })]);
    const result = await deliver([track('t2', 'Rated', { score: 'four', label: 5, at: 'yesterday' }), track('t3', 'Rated', { score: 4.5 })]);
    expect(result).toMatchObject({ status: 200, retryable: false });
    expect(await columns('rated')).toMatchObject({
      score: 'bigint',
      score_string: 'text',
      score_float: 'numeric',
      label: 'text',
      at: 'timestamp with time zone',
      at_string: 'text',
    });
    expect(await rows('rated', 'id, score, score_string, score_float, label, at_string')).toEqual([
      { id: 't1', score: '4', score_string: null, score_float: null, label: 'good', at_string: null },
      { id: 't2', score: null, score_string: 'four', score_float: null, label: '5', at_string: 'yesterday' },
      { id: 't3', score: null, score_string: null, score_float: '4.5', label: null, at_string: null },
    ]);
  });

  it('loads on although someone dropped a column or a table it knew: the chunk is tried again on a fresh layout', async () => {
    await deliver([track('t0', 'Viewed', { sku: 'a', price: 3 })]);
    await deliver([track('t1', 'Viewed', { sku: 'a', price: 3 })]);
    await db.query(`ALTER TABLE "${schema}".viewed DROP COLUMN sku`);
    await db.query(`DROP TABLE "${schema}".tracks`);
    expect(await deliver([track('t2', 'Viewed', { sku: 'b', price: 4 })])).toMatchObject({ status: 200, response: { rows: { tracks: 1, viewed: 1 } } });
    expect(await rows('viewed', 'id, sku, price')).toEqual([
      { id: 't0', sku: null, price: '3' },
      { id: 't1', sku: null, price: '3' },
      { id: 't2', sku: 'b', price: '4' },
    ]);
    expect(await rows('tracks', 'id')).toEqual([{ id: 't2' }]);
  });

  it('names an event table after a type table with a leading _, and keeps a track without a name in tracks only', async () => {
    await deliver([track('t1', 'users', { n: 1 }), { ...base('t2', 0), type: 'track', properties: { n: 2 } }]);
    expect(await tables()).toEqual(['_users', 'tracks']);
    expect(await rows('tracks', 'id, event')).toEqual([
      { id: 't1', event: '_users' },
      { id: 't2', event: null },
    ]);
  });
});

describe('PostgreSQL idempotence and users', () => {
  it('keeps text with tabs, line breaks, backslashes and NUL as sent (NUL left out)', async () => {
    const note = 'a\tb\nc\\d\re \\N é\u0000';
    await deliver([track('t1', 'Noted', { note, empty: '' })]);
    expect(await rows('noted', 'id, note, empty')).toEqual([{ id: 't1', note: 'a\tb\nc\\d\re \\N é', empty: '' }]);
  });

  it('adds no row when a chunk is sent again, nor for an event twice in one chunk', async () => {
    const chunk = [track('t1', 'Clicked', { n: 1 }), track('t2', 'Clicked', { n: 2 }), identify('i1', { plan: 'pro' })];
    expect((await deliver(chunk)).response).toMatchObject({ rows: { tracks: 2, clicked: 2, identifies: 1 } });
    const again = await deliver(chunk);
    expect(again).toMatchObject({ status: 200, response: { rows: { tracks: 0, clicked: 0, identifies: 0 } } });
    expect(await rows('clicked', 'id')).toEqual([{ id: 't1' }, { id: 't2' }]);
    expect(await rows('identifies', 'id')).toEqual([{ id: 'i1' }]);
    expect(await deliver([track('t3', 'Clicked', { n: 3 }), track('t3', 'Clicked', { n: 3 })])).toMatchObject({
      status: 200,
      response: { rows: { clicked: 1 } },
    });
    expect(await rows('clicked', 'id')).toEqual([{ id: 't1' }, { id: 't2' }, { id: 't3' }]);
  });

  it("keeps one users row a user: a newer identify's traits over older ones, an older one resent changing nothing", async () => {
    await deliver([identify('i1', { plan: 'free', city: 'Paris' }, 1), identify('i2', { plan: 'pro' }, 2), identify('b1', { plan: 'team' }, 1, 'bo')]);
    expect(await rows('users', 'id, plan, city')).toEqual([
      { id: 'ada', plan: 'pro', city: 'Paris' },
      { id: 'bo', plan: 'team', city: null },
    ]);
    await deliver([identify('i3', { plan: 'enterprise' }, 5)]);
    await deliver([identify('i1', { plan: 'free', city: 'Paris' }, 1)]);
    expect(await rows('users', 'id, plan, city')).toEqual([
      { id: 'ada', plan: 'enterprise', city: 'Paris' },
      { id: 'bo', plan: 'team', city: null },
    ]);
  });

  it('refuses only the events it cannot load: no messageId, a type with no table', async () => {
    const noId = { ...track('x', 'Clicked', {}), messageId: undefined };
    const result = await deliver([track('t1', 'Clicked', {}), noId, { ...base('x2', 0), type: 'weird' }]);
    expect(result).toMatchObject({ status: 200 });
    expect(result.verdicts).toEqual([
      { kind: 'delivered' },
      { kind: 'refused', error: 'a warehouse row needs the event to have a messageId' },
      { kind: 'refused', error: 'event type weird has no warehouse table' },
    ]);
    expect(await rows('clicked', 'id')).toEqual([{ id: 't1' }]);
  });
});

describe('PostgreSQL user deletion', () => {
  it("removes the users' rows from every table with user_id, and from users, and nobody else's", async () => {
    await deliver([
      track('t1', 'Clicked', {}, 0, 'ada'),
      track('t2', 'Clicked', {}, 0, 'bo'),
      identify('i1', { plan: 'pro' }, 0, 'ada'),
      identify('i2', { plan: 'x' }, 0, 'bo'),
    ]);
    await deliver([identify('c1', { plan: 'y' }, 0, 'cy')]);
    const outcome = await postgres.deleteUsers!([{ userId: 'ada' }, { userId: 'cy' }], config(), io);
    expect(outcome).toEqual({ status: 'completed', detail: '6 rows deleted' });
    expect(await rows('tracks', 'id')).toEqual([{ id: 't2' }]);
    expect(await rows('clicked', 'id')).toEqual([{ id: 't2' }]);
    expect(await rows('identifies', 'id')).toEqual([{ id: 'i2' }]);
    expect(await rows('users', 'id')).toEqual([{ id: 'bo' }]);
  });

  it('completes when the schema has no tables yet', async () => {
    await expect(postgres.deleteUsers!([{ userId: 'ada' }], config(), io)).resolves.toEqual({ status: 'completed', detail: '0 rows deleted' });
  });
});

describe('PostgreSQL connection failures', () => {
  const chunk = [track('t1', 'Clicked', {})];

  it('refuses a private address that is not allow-listed, for good, without connecting', async () => {
    delete process.env.WEIR_OUTBOUND_ALLOWLIST;
    expect(await deliver(chunk)).toMatchObject({ status: 403, retryable: false, error: expect.stringContaining('non-public address: 127.0.0.1') });
    const outcome = await postgres.deleteUsers!([{ userId: 'ada' }], config(), io);
    expect(outcome).toMatchObject({ status: 'failed', retryable: false });
  });

  it('does not retry a wrong password or a missing database, or SSL the server does not offer', async () => {
    const result = await deliver(chunk, config({ password: 'wrong' }));
    expect(result).toMatchObject({ status: 400, retryable: false, error: expect.stringContaining('28P01') });
    expect(result.verdicts).toBeUndefined();
    expect(await deliver(chunk, config({ database: 'nope' }))).toMatchObject({ status: 400, retryable: false, error: expect.stringContaining('3D000') });
    expect(await deliver(chunk, config({ sslMode: 'require' }))).toMatchObject({ retryable: false, error: expect.stringContaining('SSL') });
  });

  it('replaces a kept connection the server has closed, and loads the chunk', async () => {
    expect((await deliver(chunk)).status).toBe(200);
    const ended = await db.query("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'weir'");
    expect(ended.rowCount).toBeGreaterThan(0);
    expect(await deliver([track('t2', 'Clicked', {})])).toMatchObject({ status: 200, response: { rows: { tracks: 1, clicked: 1 } } });
  });

  it('retries later when nothing listens on the port', async () => {
    expect(await deliver(chunk, config({ port: await freePort() }))).toMatchObject({
      status: 503,
      retryable: true,
      error: expect.stringContaining('ECONNREFUSED'),
    });
  });
});
