import { DEFAULT_INGEST_SHARDS, MAX_INGEST_SHARDS, eventShard, partNumber, shardDrainGraceMs, shardSwitchDelayMs } from '../../shared/domain/ingestion/shards';
import { IngestRepository } from '../../shared/persistence/ingest-repository';
import { ingestItems } from '../support/ingest-items';
import { ingestServiceOver, shardsChangedAt } from '../support/ingestion';
import { countingStore } from '../support/store-reads';
import { basic, bearer, call, fileRuntime } from '../support/runtime';

/**
 * A source's ingest shards through the control plane: one for a new source, set on create, grown by PATCH from
 * a switch time 30 s ahead (requests before it keep the previous count), never shrunk, one change at a time.
 */
const rt = fileRuntime();

async function workspace() {
  const ws = await rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  return { ws, api };
}

/** Moves a source's last change of shards to `atMs` (a change made long enough ago, without waiting for it). */
const changeMadeAt = (workspaceId: string, sourceId: string, previous: number, atMs: number) =>
  shardsChangedAt(rt.store, workspaceId, sourceId, previous, atMs);

describe('a source’s ingestShards', () => {
  it('is one for a new source (which answers none), or what its create names', async () => {
    const { ws, api } = await workspace();
    const created = await api('POST', '/v2/sources', { name: 'app' });
    expect(created.status).toBe(201);
    expect(DEFAULT_INGEST_SHARDS).toBe(1);
    const read = (await api('GET', `/v2/sources/${created.body.source.id}`)).body.source;
    for (const source of [created.body.source, read]) {
      expect(source).not.toHaveProperty('ingestShards');
      expect(source).not.toHaveProperty('ingestShardsChange');
    }
    // Its events are stored as before shards: part 0 of a request, in the source's one partition.
    const { id, writeKey } = created.body.source as { id: string; writeKey: string };
    const batch = ['u1', 'u2', 'u3'].map((userId) => ({ type: 'track', userId, event: 'e' }));
    expect((await call(rt.dataUrl, 'POST', '/v1/batch', { auth: basic(writeKey, ''), body: { batch } })).status).toBe(200);
    const items = (await ingestItems(rt.store, ws.workspaceId, id)).filter((item) => item.entity === 'ingest');
    expect(items.map((item) => [item.part, item.pk])).toEqual([[0, `WS#${ws.workspaceId}#SOURCE#${id}#INGEST`]]);
    expect((await api('POST', '/v2/sources', { name: 'many', ingestShards: 16 })).body.source.ingestShards).toBe(16);
    expect((await api('POST', '/v2/sources', { name: 'most', ingestShards: MAX_INGEST_SHARDS })).body.source.ingestShards).toBe(128);
  });

  it('refuses a count that is no whole number from 1 to 128, on create and on PATCH, naming ingestShards, and changes nothing', async () => {
    const { api } = await workspace();
    const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source;
    const bad = [
      [0, 'body.ingestShards: must be at least 1'],
      [129, 'body.ingestShards: must be at most 128'],
      [1000, 'body.ingestShards: must be at most 128'],
      [2.5, 'body.ingestShards: must be a whole number of shards'],
      ['many', 'body.ingestShards: must be a whole number of shards'],
    ] as const;
    for (const [value, error] of bad) {
      const created = await api('POST', '/v2/sources', { name: 'x', ingestShards: value });
      expect([value, created.status, created.body.error]).toEqual([value, 400, error]);
      const patched = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: value });
      expect([value, patched.status, patched.body.error]).toEqual([value, 400, error]);
    }
    const read = (await api('GET', `/v2/sources/${source.id}`)).body.source;
    expect(read).toMatchObject({ updatedAt: source.updatedAt });
    expect(read).not.toHaveProperty('ingestShards');
  });

  it('refuses fewer shards than the source has (400 naming ingestShards), and changes nothing', async () => {
    const { api } = await workspace();
    const source = (await api('POST', '/v2/sources', { name: 'app', ingestShards: 16 })).body.source;
    for (const fewer of [15, 8, 1]) {
      const patched = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: fewer });
      expect([patched.status, patched.body.error]).toEqual([400, "ingestShards: must not be less than the source's 16 (shards only grow)"]);
    }
    const read = (await api('GET', `/v2/sources/${source.id}`)).body.source;
    expect(read).toMatchObject({ ingestShards: 16, updatedAt: source.updatedAt });
    expect(read.ingestShardsChange).toBeUndefined();
  });

  it('grows from a switch 30 s ahead, the previous count kept for requests before it; the same count changes nothing', async () => {
    const { api } = await workspace();
    const source = (await api('POST', '/v2/sources', { name: 'app', ingestShards: 16 })).body.source;
    const same = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 16 });
    expect(same.status).toBe(200);
    expect(same.body.source.ingestShardsChange).toBeUndefined();

    const before = Date.now();
    const grown = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 32 });
    const after = Date.now();
    expect(grown.status).toBe(200);
    expect(grown.body.source).toMatchObject({ ingestShards: 32, ingestShardsChange: { previous: 16, at: expect.any(String) } });
    const at = Date.parse(grown.body.source.ingestShardsChange.at);
    expect(shardSwitchDelayMs()).toBe(30_000);
    expect(at).toBeGreaterThanOrEqual(before + 30_000);
    expect(at).toBeLessThanOrEqual(after + 30_000);
    expect((await api('GET', `/v2/sources/${source.id}`)).body.source).toMatchObject({
      ingestShards: 32,
      ingestShardsChange: grown.body.source.ingestShardsChange,
    });
  });

  it('refuses a second change until 15 s after the first one’s switch (409), and takes it from then', async () => {
    const { ws, api } = await workspace();
    const source = (await api('POST', '/v2/sources', { name: 'app', ingestShards: 16 })).body.source;
    const first = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 32 });
    expect(first.status).toBe(200);
    const change = first.body.source.ingestShardsChange as { previous: number; at: string };

    const again = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 64 });
    expect([again.status, again.body.error]).toEqual([
      409,
      `ingestShards: the source's change to 32 shards applies at ${change.at}; change them again after it`,
    ]);
    expect((await api('GET', `/v2/sources/${source.id}`)).body.source).toMatchObject({ ingestShards: 32, ingestShardsChange: change });

    // Its switch came, but requests received before it may still be being written: still refused.
    expect(shardDrainGraceMs()).toBe(15_000);
    await changeMadeAt(ws.workspaceId, source.id, 16, Date.now() - 14_000);
    expect((await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 64 })).status).toBe(409);
    // 15 s after it: taken, from a switch of its own.
    await changeMadeAt(ws.workspaceId, source.id, 16, Date.now() - 15_500);
    const later = Date.now();
    const second = await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 64 });
    expect(second.status).toBe(200);
    expect(second.body.source).toMatchObject({ ingestShards: 64, ingestShardsChange: { previous: 32 } });
    expect(Date.parse(second.body.source.ingestShardsChange.at)).toBeGreaterThanOrEqual(later + 30_000);
  });

  it('writes a request received before the switch to the previous shards, and one received after it to the new ones', async () => {
    const { ws, api } = await workspace();
    const source = (await api('POST', '/v2/sources', { name: 'app', ingestShards: 1 })).body.source as { id: string; writeKey: string };
    expect((await api('PATCH', `/v2/sources/${source.id}`, { ingestShards: 4 })).status).toBe(200);
    // A fresh look-up of the write key each time (the data plane's keeps a source 5 s).
    const accept = (batch: Record<string, unknown>[]) => {
      return ingestServiceOver(rt.store).accept({ type: 'batch', body: { batch }, authorization: basic(source.writeKey, '') });
    };
    const users = Array.from({ length: 12 }, (_, i) => `user-${i}`);
    const events = (prefix: string) => users.map((userId, i) => ({ type: 'track', userId, event: 'e', messageId: `${prefix}-${i}` }));

    await accept(events('before'));
    await changeMadeAt(ws.workspaceId, source.id, 1, Date.now() - 1);
    await accept(events('after'));

    const items = (await ingestItems(rt.store, ws.workspaceId, source.id)).filter((item) => item.entity === 'ingest');
    const [beforeId, afterId] = [...new Set(items.map((item) => String(item.requestId)))];
    // Before: one item, part 0, in the source's first partition.
    expect(items.filter((item) => item.requestId === beforeId).map((item) => [item.part, item.pk])).toEqual([
      [0, `WS#${ws.workspaceId}#SOURCE#${source.id}#INGEST`],
    ]);
    // After: one item a user shard of 4, each in its shard's partition.
    const shards = [...new Set(users.map((userId) => eventShard({ userId }, 4)))].sort((a, b) => a - b);
    expect(shards.length).toBeGreaterThan(1);
    expect(
      items
        .filter((item) => item.requestId === afterId)
        .map((item) => [item.part, item.pk])
        .sort(([a], [b]) => Number(a) - Number(b)),
    ).toEqual(shards.map((shard) => [partNumber(shard, 0), `WS#${ws.workspaceId}#SOURCE#${source.id}#INGEST${shard === 0 ? '' : `#${shard}`}`]));
  });
});

/** A source of 16 shards that received 30 requests of 4 users each (of 23), and its stored items, oldest first. */
async function shardedSource() {
  const { ws, api } = await workspace();
  const source = (await api('POST', '/v2/sources', { name: 'app', ingestShards: 16 })).body.source as { id: string; writeKey: string };
  const service = ingestServiceOver(rt.store);
  for (let r = 0; r < 30; r++) {
    const batch = [0, 1, 2, 3].map((u) => ({ type: 'track', userId: `user-${(r * 4 + u) % 23}`, event: 'e', messageId: `recent-${r}-${u}` }));
    expect((await service.accept({ type: 'batch', body: { batch }, authorization: basic(source.writeKey, '') })).accepted).toBe(4);
  }
  const stored = await ingestItems(rt.store, ws.workspaceId, source.id);
  expect(new Set(stored.map((item) => item.pk)).size).toBeGreaterThan(8);
  // Items each Query returned, through a table client that counts them.
  const counting = countingStore(process.env.WEIR_TEST_DYNAMODB_ENDPOINT!, rt.store.table);
  return { workspaceId: ws.workspaceId, source, stored, counting, reader: new IngestRepository(counting.store) };
}

describe('a sharded source’s stored parts', () => {
  it('are read newest first across its shards, page after page, with a few items of each partition a page', async () => {
    const { workspaceId, source, stored: oldestFirst, counting, reader } = await shardedSource();
    const stored = [...oldestFirst].reverse();
    const pages: { sk: string[]; more: boolean; read: number }[] = [];
    let after: string | undefined;
    do {
      counting.reset();
      const page = await reader.recent(workspaceId, source.id, 4, after);
      pages.push({ sk: page.parts.map((p) => Buffer.from(p.cursor, 'base64url').toString()), more: page.more, read: counting.queried() });
      after = page.parts.at(-1)?.cursor;
    } while (pages.at(-1)!.more);
    expect(pages.flatMap((p) => p.sk)).toEqual(stored.map((item) => String(item.sk)));
    expect(pages.slice(0, -1).every((p) => p.more && p.sk.length === 4)).toBe(true);
    // Every partition's first page is two items (twice its share of 5, plus one), and few are read further:
    // reading 5 of each of 16 partitions would take up to 80.
    expect(pages[0]!.read).toBeLessThan(48);
  });

  it('are read oldest first in a window (what a replay reads), a few of each partition a page, not a page of each', async () => {
    const { workspaceId, source, stored, counting, reader } = await shardedSource();
    const window = { fromMs: Date.now() - 60_000, toMs: Date.now() + 1000 };
    const read: string[] = [];
    const queried: number[] = [];
    let after: string | undefined;
    for (;;) {
      counting.reset();
      const parts = await reader.archivedParts(workspaceId, source.id, { ...window, after }, 5);
      queried.push(counting.queried());
      if (parts.length === 0) break;
      read.push(...parts.map((part) => part.position));
      after = parts.at(-1)!.position;
    }
    expect(read).toEqual(stored.filter((item) => item.entity === 'ingest').map((item) => String(item.sk)));
    // A page of 5: two items of each of 16 partitions, and a few further; 6 of each would take up to 96.
    expect(queried[0]).toBeLessThan(48);
  });
});
