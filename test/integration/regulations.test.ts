import { randomUUID } from 'node:crypto';
import { suppressionIndex } from '../../shared/composition/suppression';
import type { Services } from '../../shared/services';
import type { DestinationServer } from '../support/destination-server';
import { json } from '../support/destination-server';
import { regulationSuite } from '../support/regulations';
import { call, type TestRuntime } from '../support/runtime';
import { intercepting } from '../support/store-intercept';

/** SPEC §4.B over HTTP: create, list, cancel, and the suppression index as ingestion uses it. */
const { state, workspace, settle } = regulationSuite();
let rt: TestRuntime;
let vendor: DestinationServer;
let regulations: Services;
beforeAll(() => ({ rt, vendor, regulations } = state));

describe('POST /v2/regulations', () => {
  it('answers 201 "Created" as text, and makes one regulation per user with a UUID', async () => {
    const w = await workspace();
    const answer = await w.create(
      {
        regulationType: 'suppress',
        users: [
          { userId: 'u1', email: 'a@x.io' },
          { userId: ' u2 ', phone: '+1', plan: 'gold' },
        ],
      },
      {},
    );
    expect([answer.status, answer.text, answer.headers.get('content-type')]).toEqual([201, 'Created', 'text/plain; charset=utf-8']);
    const listed = (await w.api('GET', '/v2/regulations')).body;
    expect(listed.paging).toEqual({});
    expect(listed.data).toEqual([
      {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
        workspaceId: w.ws.workspaceId,
        canceled: false,
        regulationType: 'suppress',
        attributes: { userId: 'u1', email: 'a@x.io' },
        createdAt: expect.any(String),
      },
      {
        id: expect.any(String),
        workspaceId: w.ws.workspaceId,
        canceled: false,
        regulationType: 'suppress',
        attributes: { userId: 'u2', phone: '+1', plan: 'gold' },
        createdAt: expect.any(String),
      },
    ]);
  });

  it('answers the created regulations as JSON to a client that accepts JSON', async () => {
    const w = await workspace();
    const source = await w.source();
    const answer = await w.create({ regulationType: 'suppress', sourceIds: [source], users: [{ userId: 'u1' }] });
    expect(answer.status).toBe(201);
    expect(answer.body).toEqual([
      {
        id: expect.any(String),
        workspaceId: w.ws.workspaceId,
        canceled: false,
        regulationType: 'suppress',
        attributes: { userId: 'u1' },
        sourceIds: [source],
        createdAt: expect.any(String),
      },
    ]);
    expect(await w.all()).toEqual([answer.body[0].id]);
  });

  it('creates nothing new for a retried create with the same Idempotency-Key, and refuses the key with another body', async () => {
    const w = await workspace();
    const key = { Accept: 'application/json', 'Idempotency-Key': randomUUID() };
    const body = { regulationType: 'suppress', users: [{ userId: 'u1' }, { userId: 'u2' }] };
    const first = await w.create(body, key);
    const again = await w.create(body, key);
    expect(again.status).toBe(201);
    expect(again.body.map((r: { id: string }) => r.id)).toEqual(first.body.map((r: { id: string }) => r.id));
    expect((await w.all()).sort()).toEqual(first.body.map((r: { id: string }) => r.id).sort());
    const other = await w.create({ ...body, users: [{ userId: 'u3' }] }, key);
    expect(other.status).toBe(409);
    expect(other.body.error).toBe('Idempotency-Key: already used for a different request body');
    expect(await w.all()).toHaveLength(2);
  });

  it('refuses bad input with 400 naming the field, and creates nothing', async () => {
    const w = await workspace();
    const other = await workspace();
    const mySource = await w.source();
    const theirSource = await other.source();
    const hook = await w.destination('WEBHOOK', { webhookUrl: 'https://example.com/x' });
    const theirAm = await other.amplitude();
    const cases: [unknown, string | RegExp][] = [
      [{ users: [{ userId: 'u' }] }, /^body\.regulationType: regulationType must be suppress or suppress_with_delete/],
      [{ regulationType: 'delete', users: [{ userId: 'u' }] }, /^body\.regulationType: regulationType must be/],
      [
        { regulationType: 'suppress_with_delete', sourceIds: [mySource], users: [{ userId: 'u' }] },
        'body.sourceIds: allowed only with regulationType suppress',
      ],
      [
        { regulationType: 'suppress', destinationIds: [hook], users: [{ userId: 'u' }] },
        'body.destinationIds: allowed only with regulationType suppress_with_delete',
      ],
      [{ regulationType: 'suppress', users: [] }, 'body.users: must list at least one user'],
      [{ regulationType: 'suppress' }, /^body\.users: /],
      [{ regulationType: 'suppress', users: [{ email: 'a@x.io' }] }, 'body.users.0.userId: userId must be a string'],
      [{ regulationType: 'suppress', users: [{ userId: '   ' }] }, 'body.users.0.userId: userId must not be blank'],
      [{ regulationType: 'suppress', users: [{ userId: 42 }] }, 'body.users.0.userId: userId must be a string'],
      [{ regulationType: 'suppress', users: [{ userId: 'a' }, { userId: 'a' }] }, 'body.users.1.userId: same userId as users[0]'],
      [{ regulationType: 'suppress', sourceIds: ['nope'], users: [{ userId: 'u' }] }, 'sourceIds[0]: unknown source nope'],
      [{ regulationType: 'suppress', sourceIds: [mySource, theirSource], users: [{ userId: 'u' }] }, `sourceIds[1]: unknown source ${theirSource}`],
      [{ regulationType: 'suppress', sourceIds: [], users: [{ userId: 'u' }] }, /^body\.sourceIds: must list at least one source/],
      [{ regulationType: 'suppress_with_delete', destinationIds: [theirAm], users: [{ userId: 'u' }] }, `destinationIds[0]: unknown destination ${theirAm}`],
      [{ regulationType: 'suppress_with_delete', destinationIds: [hook, 'nope'], users: [{ userId: 'u' }] }, 'destinationIds[1]: unknown destination nope'],
      [[{ regulationType: 'suppress' }], /^body: /],
      [{ regulationType: 'suppress', users: [{ userId: 'u' }], extra: true }, 'body.extra: unknown field'],
    ];
    for (const [body, error] of cases) {
      const answer = await w.create(body);
      expect([answer.status, answer.body.error]).toEqual([400, typeof error === 'string' ? error : expect.stringMatching(error)]);
    }
    const badKey = await w.create({ regulationType: 'suppress', users: [{ userId: 'u' }] }, { 'Idempotency-Key': 'x'.repeat(201) });
    expect([badKey.status, badKey.body.error]).toEqual([400, 'Idempotency-Key: 1 to 200 visible ASCII characters']);
    expect(await w.all()).toEqual([]);
    expect((await call(rt.controlUrl, 'POST', '/v2/regulations', { body: { regulationType: 'suppress', users: [{ userId: 'u' }] } })).status).toBe(401);
  });
});

describe('GET /v2/regulations', () => {
  it('pages through more than two pages with every id seen exactly once; next is absent on the last page', async () => {
    const w = await workspace();
    const users = Array.from({ length: 7 }, (_, i) => ({ userId: `user-${i}` }));
    const created = (await w.create({ regulationType: 'suppress', users })).body.map((r: { id: string }) => r.id);
    const seen: string[] = [];
    const sizes: number[] = [];
    let path: string | undefined = '/v2/regulations?per_page=3';
    while (path) {
      const page = await w.api('GET', path);
      expect(page.status).toBe(200);
      sizes.push(page.body.data.length);
      seen.push(...page.body.data.map((r: { id: string }) => r.id));
      if (page.body.paging.next) expect(page.body.paging.next).toMatch(/^\/v2\/regulations\?after_cursor=[0-9a-f]{32}$/);
      else expect(page.body.paging).toEqual({});
      path = page.body.paging.next;
    }
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(created);
  });

  it('refuses a forged, unknown or foreign cursor, and a cursor with other filters', async () => {
    const w = await workspace();
    const other = await workspace();
    await w.create({ regulationType: 'suppress', users: [{ userId: 'a' }, { userId: 'b' }] });
    const first = await w.api('GET', '/v2/regulations?per_page=1');
    const next = first.body.paging.next as string;
    for (const path of [
      '/v2/regulations?after_cursor=0123456789abcdef0123456789abcdef',
      '/v2/regulations?after_cursor=%27%20OR%201',
      next.replace(/.$/, (c) => (c === '0' ? '1' : '0')),
    ]) {
      const answer = await w.api('GET', path);
      expect([answer.status, answer.body.error]).toEqual([400, 'after_cursor: unknown or expired cursor; take it from paging.next of the previous page']);
    }
    const replayed = await other.api('GET', next);
    expect(replayed.status).toBe(400);
    expect(replayed.body.error).toMatch(/^after_cursor: unknown or expired cursor/);
    const refiltered = await w.api('GET', `${next}&regulationType=suppress_with_delete`);
    expect(refiltered.body.error).toMatch(/^after_cursor: the cursor belongs to a listing with other filters/);
    expect((await w.api('GET', next)).body.data).toHaveLength(1);
    expect((await w.api('GET', '/v2/regulations?per_page=0')).status).toBe(400);
    expect((await w.api('GET', '/v2/regulations?canceled=maybe')).body.error).toBe('query.canceled: must be true or false');
  });

  it('filters by userId, regulationType and canceled, also across pages', async () => {
    const w = await workspace();
    const am = await w.amplitude();
    vendor.on('/', json(200, {}));
    const suppress = (await w.create({ regulationType: 'suppress', users: [{ userId: 'x' }, { userId: 'y' }, { userId: 'z' }] })).body;
    const deletion = (await w.create({ regulationType: 'suppress_with_delete', destinationIds: [am], users: [{ userId: 'x' }] })).body;
    await w.api('DELETE', `/v2/regulations/${suppress[1].id}`);
    const ids = async (query: string) => (await w.api('GET', `/v2/regulations?${query}`)).body.data.map((r: { id: string }) => r.id);
    expect(await ids('userId=x')).toEqual([suppress[0].id, deletion[0].id]);
    expect(await ids('regulationType=suppress_with_delete')).toEqual([deletion[0].id]);
    expect(await ids('canceled=true')).toEqual([suppress[1].id]);
    expect(await ids('canceled=false&regulationType=suppress')).toEqual([suppress[0].id, suppress[2].id]);
    const page1 = await w.api('GET', '/v2/regulations?canceled=false&per_page=1');
    const page2 = await w.api('GET', page1.body.paging.next);
    const page3 = await w.api('GET', page2.body.paging.next);
    expect([...page1.body.data, ...page2.body.data, ...page3.body.data].map((r: { id: string }) => r.id)).toEqual([
      suppress[0].id,
      suppress[2].id,
      deletion[0].id,
    ]);
    expect(page3.body.paging).toEqual({});
    await settle(w, deletion[0].id);
  });

  it("never shows another workspace's regulations", async () => {
    const w = await workspace();
    const other = await workspace();
    const mine = (await w.create({ regulationType: 'suppress', users: [{ userId: 'u1' }] })).body[0].id;
    await other.create({ regulationType: 'suppress', users: [{ userId: 'u1' }] });
    expect(await w.all()).toEqual([mine]);
    expect((await other.api('GET', `/v2/regulations/${mine}`)).status).toBe(404);
    expect((await other.api('DELETE', `/v2/regulations/${mine}`)).status).toBe(404);
    expect((await w.api('GET', `/v2/regulations/${mine}`)).body.canceled).toBe(false);
  });
});

describe('DELETE /v2/regulations/{id}', () => {
  it('cancels idempotently; the regulation stays listed with canceled true and its cancel time', async () => {
    const w = await workspace();
    const [created] = (await w.create({ regulationType: 'suppress', users: [{ userId: 'u1' }] })).body;
    expect((await w.api('GET', `/v2/regulations/${created.id}`)).body).toMatchObject({ status: 'active', canceled: false });
    const first = await w.api('DELETE', `/v2/regulations/${created.id}`);
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ id: created.id, canceled: true, canceledAt: expect.any(String) });
    const second = await w.api('DELETE', `/v2/regulations/${created.id}`);
    expect(second.body).toEqual(first.body);
    expect((await w.api('GET', '/v2/regulations')).body.data).toEqual([first.body]);
    expect((await w.api('GET', `/v2/regulations/${created.id}`)).body).toMatchObject({
      status: 'canceled',
      canceledAt: first.body.canceledAt,
    });
    expect((await w.api('DELETE', `/v2/regulations/${randomUUID()}`)).status).toBe(404);
    expect((await w.api('DELETE', '/v2/regulations/not-a-uuid')).status).toBe(404);
  });
});

describe('the suppression index (as ingestion uses it)', () => {
  /** Plays ingestion: one request's events, one index lookup, the events that go on. */
  async function ingest(workspaceId: string, sourceId: string, events: { userId?: unknown; anonymousId?: string }[]) {
    const suppressed = await suppressionIndex(regulations).suppressedUsers(
      workspaceId,
      sourceId,
      events.map((e) => e.userId),
    );
    return events.filter((e) => {
      const id = typeof e.userId === 'number' ? String(e.userId) : typeof e.userId === 'string' ? e.userId.trim() : undefined;
      return !(id && suppressed.has(id));
    });
  }

  it('suppresses from the moment the create returns and lifts it the moment the cancel returns', async () => {
    const w = await workspace();
    const source = await w.source();
    const events = [{ userId: 'u1' }, { userId: ' u1 ' }, { userId: 'u2' }, { anonymousId: 'a1' }, { userId: 42 }];
    expect(await ingest(w.ws.workspaceId, source, events)).toHaveLength(5);
    const [r1, r42] = (await w.create({ regulationType: 'suppress', users: [{ userId: 'u1' }, { userId: '42' }] })).body;
    expect(await ingest(w.ws.workspaceId, source, events)).toEqual([{ userId: 'u2' }, { anonymousId: 'a1' }]);
    await w.api('DELETE', `/v2/regulations/${r1.id}`);
    expect(await ingest(w.ws.workspaceId, source, events)).toEqual([{ userId: 'u1' }, { userId: ' u1 ' }, { userId: 'u2' }, { anonymousId: 'a1' }]);
    await w.api('DELETE', `/v2/regulations/${r42.id}`);
    expect(await ingest(w.ws.workspaceId, source, events)).toHaveLength(5);
  });

  it('applies to the listed sources only, or to all of them', async () => {
    const w = await workspace();
    const [s1, s2] = [await w.source(), await w.source()];
    await w.create({ regulationType: 'suppress', sourceIds: [s1], users: [{ userId: 'scoped' }] });
    await w.create({ regulationType: 'suppress', users: [{ userId: 'everywhere' }] });
    const events = [{ userId: 'scoped' }, { userId: 'everywhere' }, { userId: 'free' }];
    expect(await ingest(w.ws.workspaceId, s1, events)).toEqual([{ userId: 'free' }]);
    expect(await ingest(w.ws.workspaceId, s2, events)).toEqual([{ userId: 'scoped' }, { userId: 'free' }]);
  });

  it('keeps a user suppressed while any of their regulations is in force', async () => {
    const w = await workspace();
    const [s1, s2] = [await w.source(), await w.source()];
    const [all] = (await w.create({ regulationType: 'suppress', users: [{ userId: 'u' }] })).body;
    const [onS1] = (await w.create({ regulationType: 'suppress', sourceIds: [s1], users: [{ userId: 'u' }] })).body;
    const [again] = (await w.create({ regulationType: 'suppress', sourceIds: [s1], users: [{ userId: 'u' }] })).body;
    await w.api('DELETE', `/v2/regulations/${all.id}`);
    expect(await ingest(w.ws.workspaceId, s1, [{ userId: 'u' }])).toEqual([]);
    expect(await ingest(w.ws.workspaceId, s2, [{ userId: 'u' }])).toEqual([{ userId: 'u' }]);
    await w.api('DELETE', `/v2/regulations/${onS1.id}`);
    expect(await ingest(w.ws.workspaceId, s1, [{ userId: 'u' }])).toEqual([]);
    await w.api('DELETE', `/v2/regulations/${again.id}`);
    expect(await ingest(w.ws.workspaceId, s1, [{ userId: 'u' }])).toEqual([{ userId: 'u' }]);
  });

  it("reads once per request however many events it has (and the stamp), and never sees another workspace's regulations", async () => {
    const w = await workspace();
    const other = await workspace();
    const source = await w.source();
    await other.create({ regulationType: 'suppress', users: [{ userId: 'u3' }] });
    await w.create({ regulationType: 'suppress', users: [{ userId: 'u7' }] });
    // A first request, so that what a process keeps of its source is kept before the reads are counted.
    await ingest(w.ws.workspaceId, source, [{ userId: 'u0' }]);
    let reads = 0;
    const counter = () => {
      reads++;
    };
    const events = Array.from({ length: 60 }, (_, i) => ({ userId: `u${i % 10}` }));
    const ingestTwice = async () => {
      const kept = await ingest(w.ws.workspaceId, source, events);
      expect(kept).toHaveLength(54);
      // The workspace's suppression stamp, then one read round for the ten users.
      expect(reads).toBe(2);
      // Again: the stamp has not moved, so the users read before are not read again.
      reads = 0;
      expect(await ingest(w.ws.workspaceId, source, events)).toHaveLength(54);
      expect(reads).toBe(1);
    };
    await intercepting(counter, ingestTwice, rt.store);
  });
});
