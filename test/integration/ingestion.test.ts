import { gzipSync } from 'node:zlib';
import { randomBytes } from 'node:crypto';
import { InboundLimits } from '../../shared/domain/ingestion/inbound-limits';
import { IngestService } from '../../shared/domain/ingestion/ingest-service';
import { WriteKeys } from '../../shared/domain/ingestion/write-keys';
import { errorToResult } from '../../shared/http/error-mapping';
import { CatalogRepository } from '../../shared/persistence/catalog-repository';
import { IngestRepository, unpackEvents } from '../../shared/persistence/ingest-repository';
import { basic, bearer, call, startTestRuntime, type TestRuntime } from '../support/runtime';
import { ingestItems } from '../support/ingest-items';

/** The data plane's /v1 ingestion: the status codes SDKs retry on, durability before 200, suppression. */
let rt: TestRuntime;
beforeAll(async () => (rt = await startTestRuntime()));
afterAll(async () => rt.stop());

async function source(enabled = true) {
  const ws = await rt.newWorkspace();
  const created = await call(rt.controlUrl, 'POST', '/v2/sources', { auth: bearer(ws.token), body: { name: 'app', enabled } });
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

describe('POST /v1/*', () => {
  it('stores a single event with its type from the path, messageId, receivedAt, request_ip and weirId, and answers OK', async () => {
    const s = await source();
    const answer = await send('/v1/track', { auth: s.auth, body: { userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } } });
    expect([answer.status, answer.text, answer.headers.get('content-type')]).toEqual([200, 'OK', 'text/plain; charset=utf-8']);
    const [stored] = await s.stored();
    expect(stored!.item).toMatchObject({
      entity: 'ingest',
      workspaceId: s.ws.workspaceId,
      sourceId: s.id,
      part: 0,
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

  it('stores a whole batch as one item, keeps given messageIds, and gives one person one weirId', async () => {
    const s = await source();
    const batch = [
      { type: 'identify', userId: 'u1', anonymousId: 'a1', messageId: 'm-1', traits: { email: 'a@x.io' } },
      { type: 'track', userId: 'u1', anonymousId: 'a1', event: 'Clicked' },
      { type: 'page', anonymousId: 'a2', name: 'Home' },
    ];
    expect((await send('/v1/batch', { auth: s.auth, body: { batch, sentAt: new Date().toISOString() } })).status).toBe(200);
    const stored = await s.stored();
    expect(stored).toHaveLength(1);
    const events = stored[0]!.events;
    expect(events.map((e) => [e.type, e.messageId === 'm-1'])).toEqual([
      ['identify', true],
      ['track', false],
      ['page', false],
    ]);
    expect(events[0]!.weirId).toBe(events[1]!.weirId);
    expect(events[2]!.weirId).not.toBe(events[0]!.weirId);
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

  it('splits a request only where the item size limit demands, in one transaction', async () => {
    const s = await source();
    // Incompressible properties: ~3 MB in 120 events of ~25 KB.
    const batch = Array.from({ length: 120 }, (_, i) => ({
      type: 'track',
      userId: `u${i}`,
      event: 'big',
      properties: { blob: randomBytes(12_500).toString('hex') },
    }));
    expect((await send('/v1/batch', { auth: s.auth, body: { batch } })).status).toBe(200);
    const stored = await s.stored();
    expect(stored.length).toBeGreaterThan(1);
    expect(stored.every((x) => x.item.parts === stored.length)).toBe(true);
    expect(stored.flatMap((x) => x.events.map((e) => e.userId))).toEqual(batch.map((e) => e.userId));
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

  it("stores suppressed users' events with a 200 (the consumers drop them, see delivery and capture), in one store call per request", async () => {
    const s = await source();
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
    expect((await send('/v1/batch', { auth: s.auth, body: { batch } })).status).toBe(200);
    expect((await send('/v1/identify', { auth: s.auth, body: { userId: 'gone' } })).text).toBe('OK');
    expect((await s.stored()).flatMap((x) => x.events.map((e) => e.userId ?? e.anonymousId))).toEqual(['gone', ' gone ', 'kept', 'anon', 'gone']);
    expect(created.status).toBe(201);
  });

  it('costs one store call per request once the write key is known: the write (the inbound limit costs none)', async () => {
    const s = await source();
    const ingest = new IngestRepository(rt.store);
    const service = new IngestService(new WriteKeys(new CatalogRepository(rt.store)), ingest, new InboundLimits(ingest));
    const body = { batch: Array.from({ length: 50 }, (_, i) => ({ type: 'track', userId: `u${i}` })) };
    await service.accept({ type: 'batch', body, authorization: s.auth });
    const calls: string[] = [];
    const count = (next: (args: unknown) => Promise<unknown>, context: { commandName?: string }) => async (args: unknown) => {
      calls.push(String(context.commandName));
      return next(args);
    };
    rt.store.doc.middlewareStack.add(count as never, { step: 'initialize', name: 'countCalls' });
    try {
      await service.accept({ type: 'batch', body, authorization: s.auth });
    } finally {
      rt.store.doc.middlewareStack.remove('countCalls');
    }
    expect(calls).toEqual(['PutItemCommand']);
  });

  it('answers 429 when the store throttles and 503 when it is unavailable, never 400', async () => {
    const s = await source();
    const ingest = new IngestRepository(rt.store);
    const service = new IngestService(new WriteKeys(new CatalogRepository(rt.store)), ingest, new InboundLimits(ingest));
    const cases = [
      ['ProvisionedThroughputExceededException', 429],
      ['ThrottlingException', 429],
      ['InternalServerError', 503],
      ['TimeoutError', 503],
    ] as const;
    for (const [name, status] of cases) {
      // DynamoDB Local never pushes back: the ingest write fails here the way the service would fail it.
      const pushBack = (next: (args: unknown) => Promise<unknown>) => async (args: unknown) => {
        const { input } = args as { input: { Item?: { entity?: string }; TransactItems?: { Put?: { Item?: { entity?: string } } }[] } };
        const entities = [input.Item?.entity, ...(input.TransactItems ?? []).map((t) => t.Put?.Item?.entity)];
        if (entities.includes('ingest')) throw Object.assign(new Error(name), { name });
        return next(args);
      };
      rt.store.doc.middlewareStack.add(pushBack as never, { step: 'initialize', name: 'pushBack' });
      try {
        const error = await service.accept({ type: 'track', body: { userId: 'u' }, authorization: s.auth }).catch((e: unknown) => e);
        expect([name, errorToResult(error, 'data').statusCode]).toEqual([name, status]);
      } finally {
        rt.store.doc.middlewareStack.remove('pushBack');
      }
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
