import { setTimeout as sleep } from 'node:timers/promises';
import { unpackEvents } from '../../shared/persistence/ingest-repository';
import { basic, bearer, call, fileRuntime } from '../support/runtime';
import { ingestItems } from '../support/ingest-items';

/**
 * A source's inbound limit through the local gateway: over it, 429 with Retry-After and nothing stored, while
 * another source of the same workspace goes on; accepted again after the wait; counted in the source's stats;
 * set and checked through the control plane.
 */
const rt = fileRuntime();

const PAGE = 'https://shop.example';

async function workspace() {
  const ws = await rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const source = async (body: Record<string, unknown>) => {
    const created = await api('POST', '/v2/sources', { name: 'site', ...body });
    expect(created.status).toBe(201);
    const { id, writeKey } = created.body.source as { id: string; writeKey: string };
    const stored = async () => {
      const items = await ingestItems(rt.store, ws.workspaceId, id);
      return items.filter((item) => item.entity === 'ingest').flatMap((item) => unpackEvents(item.payload as Uint8Array));
    };
    return { id, created: created.body.source, auth: basic(writeKey, ''), writeKey, stored };
  };
  return { ws, api, source };
}

const batch = (n: number, from = 0) => ({ batch: Array.from({ length: n }, (_, i) => ({ type: 'track', event: 'Viewed', userId: `u${from + i}` })) });
const send = (auth: string, body: unknown) => call(rt.dataUrl, 'POST', '/v1/batch', { auth, body, headers: { Origin: PAGE } });

describe('inbound limit', () => {
  it('answers a source over its limit 429 with Retry-After, storing nothing of it, while another source of the workspace is not slowed', async () => {
    const { api, source } = await workspace();
    // 5 events a second, bursts of 10.
    const limited = await source({ inboundLimit: 5 });
    const other = await source({});
    expect(limited.created).toMatchObject({ inboundLimit: 5 });

    expect((await send(limited.auth, batch(10))).status).toBe(200);
    // The bucket is empty: 10 more events are 2 s of refill away, less the time since (the second request comes
    // well within a second of the first).
    const over = await send(limited.auth, batch(10, 100));
    expect(over.status).toBe(429);
    const retryAfter = over.headers.get('retry-after');
    expect(retryAfter).toMatch(/^[12]$/);
    expect(over.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(over.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(over.text).toBe(`Max requests limit reached: source ${limited.id} takes at most 5 events a second (bursts of 10); retry after ${retryAfter} s`);

    // A pixel over the limit is a GIF with the same status, the wait and the reason. (A batch larger than the
    // bucket is taken when it is full and leaves it in debt: here for the next 28 s.)
    const tiny = await source({ inboundLimit: 1 });
    expect((await send(tiny.auth, batch(30))).status).toBe(200);
    const pixel = await call(rt.dataUrl, 'GET', `/pixel/v1/track?writeKey=${tiny.writeKey}&userId=p1&event=Opened`);
    expect([pixel.status, pixel.headers.get('content-type'), pixel.headers.get('retry-after')]).toEqual([429, 'image/gif', expect.stringMatching(/^(29|30)$/)]);
    expect(pixel.headers.get('x-weir-error')).toMatch(/^Max requests limit reached: source \S+ takes at most 1 event a second/);

    // Meanwhile the workspace's other source takes far more than 10 events.
    for (let i = 0; i < 5; i++) expect((await send(other.auth, batch(50, i * 50))).status).toBe(200);
    expect(await other.stored()).toHaveLength(250);
    // The first request's events only (stored one part a user shard: in no order across users).
    expect((await limited.stored()).map((e) => e.userId).sort()).toEqual(
      batch(10)
        .batch.map((e) => e.userId)
        .sort(),
    );

    // After Retry-After the bucket holds the 10 events again: the same request is taken.
    await sleep(1000 * Number(retryAfter));
    expect((await send(limited.auth, batch(10, 100))).status).toBe(200);
    expect(await limited.stored()).toHaveLength(20);

    // Counted in the source's stats (a process reports its refusals at most once a second, after answering).
    let page: { throttled?: unknown; refused?: unknown } = {};
    for (let tries = 0; tries < 50 && (page.throttled as { requests?: number } | undefined)?.requests !== 1; tries++) {
      if (tries > 0) await sleep(100);
      page = (await api('GET', `/v2/sources/${limited.id}/live-events`)).body;
    }
    expect(page.throttled).toEqual({ events: 10, requests: 1, lastAt: expect.any(String) });
    expect(page.refused).toEqual({ events: 0 });
    expect((await api('GET', `/v2/sources/${other.id}/live-events`)).body.throttled).toEqual({ events: 0, requests: 0 });
  });

  it('is set, changed and reset through the control plane, and a bad value answers 400 naming the field', async () => {
    const { api, source } = await workspace();
    const s = await source({});
    expect(s.created.inboundLimit).toBeUndefined();

    const bad = [
      [0, 'body.inboundLimit: must be at least 1 event a second'],
      [-5, 'body.inboundLimit: must be at least 1 event a second'],
      [2.5, 'body.inboundLimit: must be a whole number of events a second'],
      ['fast', 'body.inboundLimit: must be a whole number of events a second, or null for the default'],
      [1_000_001, 'body.inboundLimit: must be at most 1,000,000 events a second'],
    ] as const;
    for (const [value, error] of bad) {
      const created = await api('POST', '/v2/sources', { name: 'x', inboundLimit: value });
      expect([created.status, created.body.error]).toEqual([400, error]);
      const patched = await api('PATCH', `/v2/sources/${s.id}`, { inboundLimit: value });
      expect([patched.status, patched.body.error]).toEqual([400, error]);
    }

    expect((await api('PATCH', `/v2/sources/${s.id}`, { inboundLimit: 250 })).body.source.inboundLimit).toBe(250);
    expect((await api('GET', `/v2/sources/${s.id}`)).body.source.inboundLimit).toBe(250);
    expect((await api('PATCH', `/v2/sources/${s.id}`, { inboundLimit: null })).body.source.inboundLimit).toBeNull();
    expect((await api('GET', `/v2/sources/${s.id}`)).body.source).toMatchObject({ inboundLimit: null, name: 'site' });
  });
});
