import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { errorToResult } from '../../shared/http/error-mapping';
import { unpackEvents } from '../../shared/persistence/ingest-repository';
import { keys } from '../../shared/persistence/keys';
import { DEFAULT_INGEST_SHARDS, eventShard, partNumber } from '../../shared/domain/ingestion/shards';
import { basic, bearer, call, fileRuntime } from '../support/runtime';
import { ingestItems } from '../support/ingest-items';
import { ingestServiceOver } from '../support/ingestion';
import { intercepting } from '../support/store-intercept';

/** The data plane's /v1 ingestion: the status codes SDKs retry on, durability before 200, suppression. */
const rt = fileRuntime();
afterEach(() => jest.restoreAllMocks());

async function source(enabled = true, options: { ingestShards?: number } = {}) {
  const ws = await rt.newWorkspace();
  const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'app', enabled, ...options } });
  const { id, writeKey } = created.body.source as { id: string; writeKey: string };
  return {
    ws,
    id,
    writeKey,
    auth: basic(writeKey, ''),
    /** Every stored ingest item of the source, with its events unpacked. */
    async stored() {
      const items = await ingestItems(rt.store, ws.workspaceId, id);
      return items.filter((item) => item.entity === 'ingest').map((item) => ({ item, events: unpackEvents(item.payload as Uint8Array) }));
    },
  };
}

const send = (path: string, options: Parameters<typeof call>[3]) => call(rt.dataUrl, 'POST', path, options);

/**
 * The store calls `run` makes through the test's own client (`service`, not the runtime's), by command: a
 * transaction or a batch write with the number of ingest items it puts (and whether it claims the request), a
 * request's claim put alone as such. `writes` leaves out reads (a write key's look-up).
 */
async function storeCalls(run: () => Promise<unknown>, only: 'all' | 'writes' = 'all'): Promise<string[]> {
  const calls: string[] = [];
  const count = (command: string | undefined, request: Record<string, unknown>) => {
    const input = request as { Item?: Item; TransactItems?: { Put?: { Item?: Item } }[]; RequestItems?: Record<string, { PutRequest?: { Item?: Item } }[]> };
    const name = String(command);
    const puts = input.TransactItems?.map((t) => t.Put?.Item) ?? Object.values(input.RequestItems ?? {})[0]?.map((r) => r.PutRequest?.Item);
    const ingest = (puts ?? []).filter((item) => item?.entity === 'ingest').length;
    const claim = [input.Item, ...(puts ?? [])].some((item) => item?.entity === 'requestClaim');
    if (only === 'all' || /Put|Write|Update/.test(name)) {
      if (puts) calls.push(`${name} of ${ingest} ingest items${claim ? ' and the claim' : ''}`);
      else calls.push(claim ? `${name} of the claim` : name);
    }
  };
  await intercepting(count, run, rt.store);
  return calls;
}
type Item = { entity?: unknown };

/** Ingestion as the data plane runs it, on the test's store client (whose calls `storeCalls` sees). */
const service = () => ingestServiceOver(rt.store);

/** Items in the order of their parts (a key sorts `…#10000` before `…#2000`). */
const byPart = <T extends { item: Record<string, unknown> }>(stored: T[]) => [...stored].sort((a, b) => Number(a.item.part) - Number(b.item.part));

/** A source's shards where a test is about their layout (a new source has DEFAULT_INGEST_SHARDS). */
const SHARDS = 16;

/** Events grouped by their user's shard of `count` (shards.ts), in shard order, each group in the order sent. */
function byShard<T extends Record<string, unknown>>(events: T[], count: number): [number, T[]][] {
  const groups = new Map<number, T[]>();
  for (const event of events) groups.set(eventShard(event, count), [...(groups.get(eventShard(event, count)) ?? []), event]);
  return [...groups].sort(([a], [b]) => a - b);
}

describe('POST /v1/*', () => {
  it('stores a single event with its type from the path, messageId, receivedAt, request_ip and weirId, and answers OK', async () => {
    const s = await source();
    const answer = await send('/v1/track', { auth: s.auth, body: { userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } } });
    expect([answer.status, answer.text, answer.headers.get('content-type')]).toEqual([200, 'OK', 'text/plain; charset=utf-8']);
    const [stored, ...others] = await s.stored();
    // The user's shard of the source's (a new source has one) names the item's partition and part.
    const shard = eventShard({ userId: 'u1' }, DEFAULT_INGEST_SHARDS);
    expect(others).toEqual([]);
    expect(stored!.item).toMatchObject({
      pk: `WS#${s.ws.workspaceId}#SOURCE#${s.id}#INGEST${shard === 0 ? '' : `#${shard}`}`,
      sk: `${String(stored!.item.requestId)}#${partNumber(shard, 0)}`,
      entity: 'ingest',
      workspaceId: s.ws.workspaceId,
      sourceId: s.id,
      part: partNumber(shard, 0),
      parts: 1,
      expiresAt: expect.any(Number),
    });
    expect(stored!.events).toEqual([
      {
        type: 'track',
        userId: 'u1',
        event: 'Signed Up',
        properties: { plan: 'pro' },
        messageId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        receivedAt: stored!.item.receivedAt,
        request_ip: '127.0.0.1',
        context: { ip: '127.0.0.1' },
        weirId: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      },
    ]);
  });

  it('stores a whole batch as one item on a source of one shard, keeps given messageIds, and gives one person one weirId', async () => {
    const s = await source(true, { ingestShards: 1 });
    const batch = [
      { type: 'identify', userId: 'u1', anonymousId: 'a1', messageId: 'm-1', traits: { email: 'a@x.io' } },
      { type: 'track', userId: 'u1', anonymousId: 'a1', event: 'Clicked' },
      { type: 'page', anonymousId: 'a2', name: 'Home' },
    ];
    expect((await send('/v1/batch', { auth: s.auth, body: { batch, sentAt: new Date().toISOString() } })).status).toBe(200);
    const stored = await s.stored();
    expect(stored).toHaveLength(1);
    // One shard: part 0, in the source's one partition.
    expect(stored[0]!.item).toMatchObject({ pk: `WS#${s.ws.workspaceId}#SOURCE#${s.id}#INGEST`, part: 0, parts: 1 });
    const events = stored[0]!.events;
    expect(events.map((e) => [e.type, e.messageId === 'm-1'])).toEqual([
      ['identify', true],
      ['track', false],
      ['page', false],
    ]);
    expect(events[0]!.weirId).toBe(events[1]!.weirId);
    expect(events[2]!.weirId).not.toBe(events[0]!.weirId);
  });

  it("stores a batch of a source of 16 shards as one item per user shard, each user's events together and in order, after the request's claim", async () => {
    const s = await source(true, { ingestShards: SHARDS });
    // 12 users' events interleaved, some by userId, some by anonymousId only, one user under both.
    const batch = Array.from({ length: 36 }, (_, i) => {
      const user = i % 12;
      const ids = user % 3 === 0 ? { anonymousId: `anon-${user}` } : { userId: `user-${user}`, anonymousId: `anon-${user}` };
      return { type: 'track', ...ids, event: `e${i}`, messageId: `m-${i}` };
    });
    const calls = await storeCalls(() => service().accept({ type: 'batch', body: { batch }, authorization: s.auth }), 'writes');
    const expected = byShard(batch, SHARDS);
    expect(expected.length).toBeGreaterThan(1);
    // The request's claim (with the source's first event), then its items in one batch write, one unit each.
    expect(calls).toEqual(['TransactWriteItemsCommand of 0 ingest items and the claim', `BatchWriteItemCommand of ${expected.length} ingest items`]);
    const stored = byPart(await s.stored());
    const requestId = String(stored[0]!.item.requestId);
    expect(stored.map((x) => [x.item.requestId, x.item.part, x.item.parts, x.item.pk])).toEqual(
      expected.map(([shard]) => [requestId, partNumber(shard, 0), expected.length, keys.ingest(s.ws.workspaceId, s.id, requestId, partNumber(shard, 0)).pk]),
    );
    expect(new Set(stored.map((x) => x.item.pk)).size).toBe(expected.length);
    expect(stored.map((x) => x.events.map((e) => e.messageId))).toEqual(expected.map(([, group]) => group.map((e) => e.messageId)));
  });

  it('takes the write key from the body, gzip whatever the content type says, and JSON labelled as anything', async () => {
    const s = await source();
    const body = { batch: [{ type: 'track', userId: 'u', event: 'gz' }], writeKey: s.writeKey };
    const gz = await send('/v1/batch', {
      rawBody: gzipSync(JSON.stringify(body)),
      headers: { 'Content-Type': 'application/x-www-form-urlencoded', 'Content-Encoding': 'gzip' },
    });
    expect(gz.status).toBe(200);
    const text = await send('/v1/track', {
      auth: s.auth,
      rawBody: JSON.stringify({ userId: 'u', event: 'plain' }),
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(text.status).toBe(200);
    expect((await s.stored()).flatMap((x) => x.events.map((e) => e.event)).sort()).toEqual(['gz', 'plain']);
  });

  it('splits a request only where the item size limit demands, each part after the one before (a source of one shard: parts 0, 1, …)', async () => {
    const s = await source(true, { ingestShards: 1 });
    // Incompressible properties: ~3 MB in 120 events of ~25 KB.
    const batch = Array.from({ length: 120 }, (_, i) => ({
      type: 'track',
      userId: `u${i}`,
      event: 'big',
      properties: { blob: randomBytes(12_500).toString('hex') },
    }));
    const calls = await storeCalls(() => service().accept({ type: 'batch', body: { batch }, authorization: s.auth }), 'writes');
    const stored = byPart(await s.stored());
    expect(stored.length).toBeGreaterThan(1);
    // The claim, then the parts, each after the one before it (the shard's stream hands them over in that order).
    expect(calls).toEqual(['TransactWriteItemsCommand of 0 ingest items and the claim', ...stored.map(() => 'BatchWriteItemCommand of 1 ingest items')]);
    expect(stored.map((x) => [x.item.part, x.item.parts])).toEqual(stored.map((_, i) => [i, stored.length]));
    expect(stored.flatMap((x) => x.events.map((e) => e.userId))).toEqual(batch.map((e) => e.userId));
  });

  it("splits a shard's events only where the item size limit demands: its parts numbered from the shard's, each after the one before", async () => {
    const s = await source(true, { ingestShards: SHARDS });
    // One heavy user (~1.5 MB over 60 events of ~25 KB, incompressible) and a light one, interleaved.
    const batch = Array.from({ length: 80 }, (_, i) =>
      i % 4 === 3
        ? { type: 'track', userId: 'light', event: `light-${i}`, messageId: `m-${i}` }
        : { type: 'track', userId: 'heavy', event: `heavy-${i}`, messageId: `m-${i}`, properties: { blob: randomBytes(12_500).toString('hex') } },
    );
    const [heavy, light] = [eventShard({ userId: 'heavy' }, SHARDS), eventShard({ userId: 'light' }, SHARDS)];
    const calls = await storeCalls(() => service().accept({ type: 'batch', body: { batch }, authorization: s.auth }), 'writes');
    const stored = byPart(await s.stored());
    // The claim; both shards' first parts at once, then the heavy shard's others, each after the one before.
    expect(calls).toEqual([
      'TransactWriteItemsCommand of 0 ingest items and the claim',
      'BatchWriteItemCommand of 2 ingest items',
      ...stored.slice(2).map(() => 'BatchWriteItemCommand of 1 ingest items'),
    ]);
    expect(stored.every((x) => x.item.parts === stored.length && x.item.requestId === stored[0]!.item.requestId)).toBe(true);
    const partsOf = (shard: number) => stored.filter((x) => x.events.some((e) => eventShard(e, SHARDS) === shard));
    const heavyParts = partsOf(heavy);
    expect(heavyParts.length).toBeGreaterThan(1);
    expect(heavyParts.map((x) => x.item.part)).toEqual(heavyParts.map((_, i) => partNumber(heavy, i)));
    expect(heavyParts.flatMap((x) => x.events.map((e) => e.messageId))).toEqual(batch.filter((e) => e.userId === 'heavy').map((e) => e.messageId));
    // The light user's 20 small events fit one item: its shard (another) is not split.
    expect(light).not.toBe(heavy);
    expect(partsOf(light).map((x) => [x.item.part, x.events.map((e) => e.messageId)])).toEqual([
      [partNumber(light, 0), batch.filter((e) => e.userId === 'light').map((e) => e.messageId)],
    ]);
  });

  it('answers each refusal with the status SDKs expect, and stores nothing of a refused request', async () => {
    const s = await source();
    const disabled = await source(false);
    const cases: [string, Parameters<typeof call>[3], number, RegExp][] = [
      ['/v1/track', { body: { userId: 'u' } }, 401, /^Failed to read writeKey/],
      ['/v1/track', { auth: basic('nope', ''), body: { userId: 'u' } }, 401, /^Invalid write key/],
      ['/v1/track', { auth: bearer(s.writeKey), body: { userId: 'u' } }, 401, /Invalid Authorization Header/],
      ['/v1/track', { auth: disabled.auth, body: { userId: 'u' } }, 404, /^Source is disabled/],
      ['/v1/track', { auth: s.auth, rawBody: '{"userId":', headers: { 'Content-Type': 'application/json' } }, 400, /^body: malformed JSON/],
      ['/v1/track', { auth: s.auth, body: ['x'] }, 400, /^body: /],
      ['/v1/track', { auth: s.auth, body: { event: 'no ids' } }, 400, /request neither has anonymousId nor userId/],
      ['/v1/track', { auth: s.auth, body: { userId: '  ' } }, 400, /request neither has anonymousId nor userId/],
      ['/v1/purchase', { auth: s.auth, body: { userId: 'u' } }, 400, /^path\.type: unknown event type/],
      ['/v1/batch', { auth: s.auth, body: { batch: [] } }, 400, /empty batch payload/],
      ['/v1/batch', { auth: s.auth, body: { batch: 'x' } }, 400, /batch must be an array/],
      [
        '/v1/batch',
        {
          auth: s.auth,
          body: {
            batch: [
              { type: 'track', userId: 'ok' },
              { type: 'buy', userId: 'u' },
            ],
          },
        },
        400,
        /^batch\[1\]: event is not a valid event: unknown type "buy"/,
      ],
      ['/v1/batch', { auth: s.auth, body: { batch: [{ type: 'track', userId: 'ok' }, 7] } }, 400, /^batch\[1\]: event is not a valid event: not an object/],
      ['/v1/track', { auth: s.auth, body: { userId: 'u', blob: 'x'.repeat(33_000) } }, 413, /^batch\[0\]: event is \d+ bytes, over the limit of 32768/],
      [
        '/v1/batch',
        { auth: s.auth, body: { batch: Array.from({ length: 200 }, () => ({ type: 'track', userId: 'u', blob: 'x'.repeat(21_000) })) } },
        413,
        /request body is larger than 4194304 bytes/,
      ],
    ];
    for (const [path, options, status, text] of cases) {
      const answer = await send(path, options);
      expect([path, answer.status, answer.text]).toEqual([path, status, expect.stringMatching(text)]);
      expect(answer.headers.get('content-type')).toMatch(/^text\/plain/);
    }
    expect(await s.stored()).toEqual([]);
  });

  it("stores suppressed users' events with a 200 (the consumers drop them, see delivery and capture), one item per user shard", async () => {
    const s = await source(true, { ingestShards: SHARDS });
    const created = await call(rt.controlUrl, 'POST', '/v2/regulations', {
      auth: bearer(s.ws.token),
      headers: { Accept: 'application/json' },
      body: { regulationType: 'suppress', users: [{ userId: 'gone' }] },
    });
    const batch = [
      { type: 'track', userId: 'gone' },
      { type: 'track', userId: ' gone ' },
      { type: 'track', userId: 'kept' },
      { type: 'track', anonymousId: 'anon' },
    ];
    const ingestion = service();
    const calls = await storeCalls(async () => {
      await ingestion.accept({ type: 'batch', body: { batch }, authorization: s.auth });
      await ingestion.accept({ type: 'identify', body: { userId: 'gone' }, authorization: s.auth });
    }, 'writes');
    // The batch's three users are in as many items, each user's events in order.
    const shards = byShard(batch, SHARDS).length;
    expect(calls).toEqual(['TransactWriteItemsCommand of 0 ingest items and the claim', `BatchWriteItemCommand of ${shards} ingest items`, 'PutItemCommand']);
    const stored = await s.stored();
    const requests = [...new Set(stored.map((x) => String(x.item.requestId)))];
    const eventsOf = (requestId: string) => stored.filter((x) => x.item.requestId === requestId).flatMap((x) => x.events.map((e) => e.userId ?? e.anonymousId));
    expect(requests.map(eventsOf)).toEqual([byShard(batch, SHARDS).flatMap(([, group]) => group.map((e) => e.userId ?? e.anonymousId)), ['gone']]);
    expect(created.status).toBe(201);
  });

  it('costs one store call per request of one item once the write key is known (the inbound limit costs none), two for a request of several: its claim, then its items', async () => {
    const ingestion = service();
    const body = { batch: Array.from({ length: 50 }, (_, i) => ({ type: 'track', userId: `u${i}` })) };
    const one = { batch: Array.from({ length: 5 }, () => ({ type: 'track', userId: 'just-one' })) };
    const sharded = await source(true, { ingestShards: SHARDS });
    const single = await source(true, { ingestShards: 1 });
    // The process's caches (write keys for 5 s, shard counts for 10 s) hold, and the inbound limit reports nothing
    // (a report at most once a second), while the calls are counted, however slow the machine: their clock stands still.
    const now = Date.now();
    jest.spyOn(Date, 'now').mockReturnValue(now);
    for (const s of [sharded, single]) await ingestion.accept({ type: 'batch', body, authorization: s.auth });
    // 50 users over 16 shards: the claim, then one item a shard in a batch write; one user, or one shard: one item, put.
    const shards = byShard(body.batch, SHARDS).length;
    expect(await storeCalls(() => ingestion.accept({ type: 'batch', body, authorization: sharded.auth }))).toEqual([
      'PutItemCommand of the claim',
      `BatchWriteItemCommand of ${shards} ingest items`,
    ]);
    expect(await storeCalls(() => ingestion.accept({ type: 'batch', body: one, authorization: sharded.auth }))).toEqual(['PutItemCommand']);
    expect(await storeCalls(() => ingestion.accept({ type: 'batch', body, authorization: single.auth }))).toEqual(['PutItemCommand']);
  });

  it('answers 429 when the store throttles and 503 when it is unavailable, never 400', async () => {
    const s = await source();
    const ingestion = service();
    const cases = [
      ['ProvisionedThroughputExceededException', 429],
      ['ThrottlingException', 429],
      ['InternalServerError', 503],
      ['TimeoutError', 503],
    ] as const;
    for (const [name, status] of cases) {
      // DynamoDB Local never pushes back: the ingest write fails here the way the service would fail it.
      const pushBack = (_: unknown, request: Record<string, unknown>) => {
        const input = request as { Item?: { entity?: string }; TransactItems?: { Put?: { Item?: { entity?: string } } }[] };
        const entities = [input.Item?.entity, ...(input.TransactItems ?? []).map((t) => t.Put?.Item?.entity)];
        if (entities.includes('ingest')) throw Object.assign(new Error(name), { name });
      };
      const accepting = () => ingestion.accept({ type: 'track', body: { userId: 'u' }, authorization: s.auth }).catch((e: unknown) => e);
      const error = await intercepting(pushBack, accepting, rt.store);
      expect([name, errorToResult(error, 'data').statusCode]).toEqual([name, status]);
    }
    expect(await s.stored()).toEqual([]);
  });
});

describe('GET /openapi.json on the data plane', () => {
  it('describes ingestion and data governance, served by the data plane itself', async () => {
    const answer = await call(rt.dataUrl, 'GET', '/openapi.json');
    expect(answer.status).toBe(200);
    expect(answer.body.info.title).toBe('Weir data plane');
    expect(Object.keys(answer.body.paths)).toEqual(
      expect.arrayContaining(['/v1/{type}', '/schemas/event-models', '/schemas/event-model/{EventID}/key-counts']),
    );
    expect(answer.body.paths['/v1/{type}'].post.security).toEqual([{ writeKey: [] }]);
  });
});
