import { gzipSync } from 'node:zlib';
import { TRUSTED_PROXIES_ENV } from '../../shared/http/client-ip';
import { unpackEvents } from '../../shared/persistence/ingest-repository';
import { ADMIN, basic, bearer, call, fileRuntime } from '../support/runtime';
import { ingestItems } from '../support/ingest-items';

/**
 * The data plane as web pages and apps reach it: CORS for any page on the browser routes (never on the admin
 * ones), Segment's paths and text/plain bodies, beacons, pixels, the SDKs' configuration, the device clock's
 * correction, the client's address behind a trusted proxy, and an oversized event that costs only itself.
 */
const rt = fileRuntime();

const PAGE = 'http://localhost:5173';

async function source(options: { enabled?: boolean; type?: string } = {}) {
  const ws = await rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const created = await api('POST', '/v2/sources', { name: 'site', type: options.type ?? 'javascript', enabled: options.enabled ?? true });
  const { id, writeKey } = created.body.source as { id: string; writeKey: string };
  return {
    ws,
    id,
    writeKey,
    api,
    auth: basic(writeKey, ''),
    /** Every event stored for the source, oldest first. */
    async stored(): Promise<Record<string, unknown>[]> {
      const items = await ingestItems(rt.store, ws.workspaceId, id);
      return items.filter((item) => item.entity === 'ingest').flatMap((item) => unpackEvents(item.payload as Uint8Array));
    },
  };
}

const data = (method: string, path: string, options: Parameters<typeof call>[3] = {}) => call(rt.dataUrl, method, path, options);

describe('CORS on the data plane', () => {
  it('answers a preflight on every browser route from any origin, echoing the headers asked for', async () => {
    for (const path of ['/v1/track', '/v1/batch', '/v1/t', '/beacon/v1/batch', '/sourceConfig/', '/v1/projects/abc/settings', '/pixel/v1/page']) {
      const answer = await data('OPTIONS', path, {
        headers: {
          Origin: PAGE,
          'Access-Control-Request-Method': 'POST',
          'Access-Control-Request-Headers': 'authorization,content-type,anonymousid,x-retry-count',
        },
      });
      expect([path, answer.status]).toEqual([path, 204]);
      expect(answer.headers.get('access-control-allow-origin')).toBe(PAGE);
      expect(answer.headers.get('access-control-allow-credentials')).toBe('true');
      expect(answer.headers.get('access-control-allow-headers')).toBe('authorization,content-type,anonymousid,x-retry-count');
      expect(answer.headers.get('access-control-allow-methods')).toContain('POST');
    }
    const unnamed = await data('OPTIONS', '/v1/page', { headers: { Origin: 'https://shop.example', 'Access-Control-Request-Method': 'POST' } });
    expect(unnamed.headers.get('access-control-allow-origin')).toBe('https://shop.example');
    expect(unnamed.headers.get('access-control-allow-headers')).toContain('AnonymousId');
  });

  it('lets any page read ingestion answers, refusals included', async () => {
    const s = await source();
    const from = { Origin: PAGE };
    const ok = await data('POST', '/v1/track', { auth: s.auth, body: { anonymousId: 'a', event: 'E' }, headers: from });
    expect([ok.status, ok.headers.get('access-control-allow-origin'), ok.headers.get('vary')]).toEqual([200, PAGE, 'Origin']);
    for (const [auth, status] of [
      [undefined, 401],
      [basic('unknown', ''), 401],
    ] as const) {
      const refused = await data('POST', '/v1/track', { auth, body: { anonymousId: 'a' }, headers: from });
      expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([status, PAGE]);
    }
    const unknownRoute = await data('POST', '/v1/t/x', { headers: from });
    expect([unknownRoute.status, unknownRoute.headers.get('access-control-allow-origin')]).toEqual([404, PAGE]);
  });

  it('keeps the admin routes closed to other origins: no preflight, no CORS on answers', async () => {
    const preflight = await data('OPTIONS', '/schemas/event-models', { headers: { Origin: PAGE, 'Access-Control-Request-Method': 'GET' } });
    expect(preflight.status).toBeGreaterThanOrEqual(400);
    expect(preflight.headers.get('access-control-allow-headers')).toBeNull();
    const listed = await data('GET', '/schemas/event-models', { auth: basic(ADMIN.user, ADMIN.password), headers: { Origin: PAGE } });
    expect([listed.status, listed.headers.get('access-control-allow-origin')]).toEqual([200, null]);
    const refused = await data('GET', '/admin/parked-records', { auth: basic(ADMIN.user, 'wrong'), headers: { Origin: PAGE } });
    expect([refused.status, refused.headers.get('access-control-allow-origin')]).toEqual([400, null]);
  });
});

describe("Segment's paths and bodies", () => {
  it('takes the one-letter paths as the types they abbreviate, and /v1/b and /v1/import as batches', async () => {
    const s = await source();
    const paths = { t: 'track', p: 'page', i: 'identify', g: 'group', a: 'alias', s: 'screen' } as const;
    for (const path of Object.keys(paths)) {
      expect((await data('POST', `/v1/${path}`, { body: { writeKey: s.writeKey, anonymousId: 'a', messageId: `m-${path}` } })).text).toBe('OK');
    }
    for (const path of ['b', 'import']) {
      expect(
        (await data('POST', `/v1/${path}`, { body: { batch: [{ type: 'track', anonymousId: 'a', messageId: `m-${path}`, writeKey: s.writeKey }] } })).status,
      ).toBe(200);
    }
    const stored = await s.stored();
    expect(stored.map((e) => [e.messageId, e.type])).toEqual([
      ...Object.entries(paths).map(([p, type]) => [`m-${p}`, type]),
      ['m-b', 'track'],
      ['m-import', 'track'],
    ]);
    expect(stored.some((e) => 'writeKey' in e)).toBe(false);
  });

  it('reads text/plain bodies as JSON, gzipped or not, with the write key in the body or in each event', async () => {
    const s = await source();
    const text = { 'Content-Type': 'text/plain;charset=UTF-8' };
    const plain = await data('POST', '/v1/t', {
      rawBody: JSON.stringify({ writeKey: s.writeKey, anonymousId: 'a', event: 'Plain', messageId: 'm1' }),
      headers: text,
    });
    expect(plain.status).toBe(200);
    const batch = { batch: [1, 2].map((n) => ({ type: 'track', anonymousId: 'a', event: 'Zipped', messageId: `m${n + 1}`, writeKey: s.writeKey })) };
    const zipped = await data('POST', '/v1/b', { rawBody: gzipSync(JSON.stringify(batch)), headers: { ...text, 'Content-Encoding': 'gzip' } });
    expect(zipped.status).toBe(200);
    expect((await s.stored()).map((e) => [e.messageId, e.writeKey])).toEqual([
      ['m1', undefined],
      ['m2', undefined],
      ['m3', undefined],
    ]);
  });

  it('refuses bad input clearly and stores nothing of it', async () => {
    const s = await source();
    const text = { 'Content-Type': 'text/plain' };
    const cases: [string, Parameters<typeof call>[3], number, RegExp][] = [
      ['/v1/t', { rawBody: JSON.stringify({ anonymousId: 'a' }), headers: text }, 401, /^Failed to read writeKey/],
      ['/v1/t', { rawBody: JSON.stringify({ anonymousId: 'a', writeKey: 'nope' }), headers: text }, 401, /^Invalid write key/],
      ['/v1/t', { rawBody: 'this is not json', headers: text }, 400, /^body: malformed JSON/],
      ['/v1/b', { rawBody: '{"batch": [', headers: text }, 400, /^body: malformed JSON/],
      ['/v1/b', { auth: s.auth, body: { batch: [] } }, 400, /empty batch/],
      ['/v1/b', { body: { batch: 'not a list' } }, 401, /^Failed to read writeKey/],
      ['/v1/x', { auth: s.auth, body: { anonymousId: 'a' } }, 400, /unknown event type/],
    ];
    for (const [path, options, status, message] of cases) {
      const answer = await data('POST', path, options);
      expect([path, answer.status, answer.text]).toEqual([path, status, expect.stringMatching(message)]);
    }
    const disabled = await source({ enabled: false });
    expect((await data('POST', '/v1/t', { body: { writeKey: disabled.writeKey, anonymousId: 'a' } })).status).toBe(404);
    expect(await s.stored()).toEqual([]);
  });
});

describe('beacons and pixels', () => {
  it('takes a beacon: the write key in the query, a text/plain batch', async () => {
    const s = await source();
    const body = JSON.stringify({ batch: [{ type: 'page', anonymousId: 'a', name: 'Leaving', messageId: 'b1' }], sentAt: new Date().toISOString() });
    const answer = await data('POST', `/beacon/v1/batch?writeKey=${s.writeKey}`, {
      rawBody: body,
      headers: { 'Content-Type': 'text/plain;charset=UTF-8', Origin: PAGE },
    });
    expect([answer.status, answer.text, answer.headers.get('access-control-allow-origin')]).toEqual([200, 'OK', PAGE]);
    expect(await s.stored()).toEqual([expect.objectContaining({ type: 'page', name: 'Leaving', messageId: 'b1' })]);
    const missing = await data('POST', '/beacon/v1/batch', { rawBody: body, headers: { 'Content-Type': 'text/plain' } });
    expect([missing.status, missing.text]).toEqual([401, 'Failed to read writeKey from header or body']);
  });

  it('builds a pixel’s event from its query and always answers a 1×1 GIF', async () => {
    const s = await source();
    const open = await fetch(
      `${rt.dataUrl}/pixel/v1/track?writeKey=${s.writeKey}&anonymousId=reader-1&event=Email%20Opened&properties.campaign=autumn&properties.link.id=7`,
    );
    const bytes = Buffer.from(await open.arrayBuffer());
    expect([open.status, open.headers.get('content-type'), bytes.subarray(0, 6).toString('latin1'), bytes.readUInt16LE(6), bytes.readUInt16LE(8)]).toEqual([
      200,
      'image/gif',
      'GIF89a',
      1,
      1,
    ]);
    const page = await fetch(`${rt.dataUrl}/pixel/v1/page?writeKey=${s.writeKey}&anonymousId=reader-1&name=Newsletter`);
    expect(page.status).toBe(200);
    expect(await s.stored()).toEqual([
      expect.objectContaining({ type: 'track', anonymousId: 'reader-1', event: 'Email Opened', properties: { campaign: 'autumn', link: { id: '7' } } }),
      expect.objectContaining({ type: 'page', anonymousId: 'reader-1', name: 'Newsletter' }),
    ]);
    for (const [query, status, reason] of [
      ['anonymousId=a', 401, /^Failed to read writeKey/],
      [`writeKey=nope&anonymousId=a`, 401, /^Invalid write key/],
      [`writeKey=${s.writeKey}`, 400, /neither has anonymousId nor userId/],
      [`writeKey=${s.writeKey}&anonymousId=a&properties.__proto__.x=1`, 400, /^query\.properties\.__proto__\.x: not a field name/],
    ] as const) {
      const refused = await fetch(`${rt.dataUrl}/pixel/v1/track?${query}`);
      expect([query, refused.status, refused.headers.get('content-type'), refused.headers.get('x-weir-error')]).toEqual([
        query,
        status,
        'image/gif',
        expect.stringMatching(reason),
      ]);
    }
    expect((await s.stored()).length).toBe(2);
  });
});

describe('the SDKs’ configuration', () => {
  it('answers sourceConfig as RudderStack’s control plane does, by Basic user name or query, cached with an ETag', async () => {
    const s = await source();
    const byHeader = await data('GET', '/sourceConfig/?p=npm&v=3.0.0&writeKey=ignored', { auth: s.auth, headers: { Origin: PAGE } });
    expect(byHeader.status).toBe(200);
    expect(byHeader.body).toMatchObject({
      source: { id: s.id, name: 'site', writeKey: s.writeKey, workspaceId: s.ws.workspaceId, enabled: true, config: expect.any(Object), destinations: [] },
    });
    expect(byHeader.headers.get('access-control-allow-origin')).toBe(PAGE);
    expect(byHeader.headers.get('cache-control')).toBe('private, max-age=60');
    const etag = byHeader.headers.get('etag')!;
    const byQuery = await data('GET', `/sourceConfig?writeKey=${s.writeKey}`);
    expect([byQuery.body, byQuery.headers.get('etag')]).toEqual([byHeader.body, etag]);
    const again = await data('GET', `/sourceConfig?writeKey=${s.writeKey}`, { headers: { 'If-None-Match': etag } });
    expect([again.status, again.text]).toEqual([304, '']);
  });

  it('says enabled: false for a disabled source, and refuses a missing or unknown write key', async () => {
    const disabled = await source({ enabled: false });
    expect((await data('GET', `/sourceConfig?writeKey=${disabled.writeKey}`)).body.source.enabled).toBe(false);
    expect(await data('GET', '/sourceConfig')).toMatchObject({ status: 401, text: 'Failed to read writeKey from header or body' });
    expect(await data('GET', '/sourceConfig?writeKey=nope')).toMatchObject({ status: 401, text: 'Invalid write key' });
    expect(await data('GET', '/v1/projects/nope/settings')).toMatchObject({ status: 401, text: 'Invalid write key' });
  });

  it("gives Analytics.js settings that send to this data plane's /v1", async () => {
    const s = await source();
    const answer = await data('GET', `/v1/projects/${s.writeKey}/settings`, { headers: { Origin: PAGE } });
    const host = new URL(rt.dataUrl).host;
    expect(answer.body.integrations['Segment.io']).toEqual({ apiKey: s.writeKey, apiHost: `${host}/v1`, protocol: 'http' });
    expect(answer.headers.get('access-control-allow-origin')).toBe(PAGE);
    const proxied = await data('GET', `/v1/projects/${s.writeKey}/settings`, { headers: { 'X-Forwarded-Proto': 'https' } });
    expect(proxied.body.integrations['Segment.io'].protocol).toBe('https');
  });
});

describe('what the data plane adds to every event', () => {
  it("corrects a device clock that is wrong, and keeps a caller's explicit timestamp", async () => {
    const s = await source();
    const hour = 3600_000;
    const fast = (ms: number) => new Date(Date.now() + hour + ms).toISOString();
    // A RudderStack SDK on a device an hour fast: originalTimestamp and sentAt on its clock.
    const before = Date.now();
    await data('POST', '/v1/batch', {
      auth: s.auth,
      body: { batch: [{ type: 'track', anonymousId: 'a', messageId: 'r1', originalTimestamp: fast(-5000) }], sentAt: fast(0) },
    });
    // Analytics.js an hour fast: its timestamp and sentAt on the device's clock.
    await data('POST', '/v1/t', { body: { writeKey: s.writeKey, anonymousId: 'a', messageId: 's1', timestamp: fast(-2000), sentAt: fast(0) } });
    // A server that sets the time of a past event itself.
    await data('POST', '/v1/track', {
      auth: s.auth,
      body: { userId: 'u', messageId: 'k1', timestamp: '2020-01-01T00:00:00.000Z', originalTimestamp: fast(0), sentAt: fast(0) },
    });
    const after = Date.now();
    const [rudder, segment, server] = await s.stored();
    const at = (e: Record<string, unknown> | undefined) => Date.parse(String(e?.timestamp));
    expect(at(rudder)).toBeGreaterThanOrEqual(before - 5000 - 5);
    expect(at(rudder)).toBeLessThanOrEqual(after - 5000 + 5);
    expect(at(segment)).toBeGreaterThanOrEqual(before - 2000 - 5);
    expect(at(segment)).toBeLessThanOrEqual(after - 2000 + 5);
    expect(segment!.originalTimestamp).toEqual(expect.any(String));
    expect(Date.parse(String(segment!.originalTimestamp))).toBeGreaterThan(after + hour - 3000);
    expect(server!.timestamp).toBe('2020-01-01T00:00:00.000Z');
  });

  it('takes the client’s address from X-Forwarded-For only behind a trusted proxy, and keeps one the event carries', async () => {
    const s = await source();
    const forwarded = { 'X-Forwarded-For': '203.0.113.7, 10.0.0.2' };
    await data('POST', '/v1/track', { auth: s.auth, body: { anonymousId: 'a', messageId: 'untrusted' }, headers: forwarded });
    process.env[TRUSTED_PROXIES_ENV] = '127.0.0.0/8,::1';
    try {
      await data('POST', '/v1/track', { auth: s.auth, body: { anonymousId: 'a', messageId: 'trusted' }, headers: forwarded });
      await data('POST', '/v1/track', {
        auth: s.auth,
        body: { anonymousId: 'a', messageId: 'own', context: { ip: '198.51.100.4', locale: 'fr' } },
        headers: forwarded,
      });
    } finally {
      delete process.env[TRUSTED_PROXIES_ENV];
    }
    const byId = Object.fromEntries((await s.stored()).map((e) => [e.messageId, [e.request_ip, e.context]]));
    expect(byId).toEqual({
      untrusted: ['127.0.0.1', { ip: '127.0.0.1' }],
      trusted: ['203.0.113.7', { ip: '203.0.113.7' }],
      own: ['203.0.113.7', { ip: '198.51.100.4', locale: 'fr' }],
    });
  });
});

describe('an oversized event', () => {
  it('is refused alone: the others are stored, it is counted and shown in the source’s live events with its reason', async () => {
    const s = await source();
    const batch = [
      { type: 'track', anonymousId: 'a', event: 'Small', messageId: 'ok-1' },
      { type: 'track', anonymousId: 'a', event: 'Huge', messageId: 'big-1', properties: { blob: 'x'.repeat(40_000) } },
      { type: 'track', anonymousId: 'a', event: 'Small', messageId: 'ok-2' },
    ];
    const answer = await data('POST', '/v1/batch', { auth: s.auth, body: { batch } });
    expect([answer.status, answer.text]).toEqual([200, 'OK']);
    expect((await s.stored()).map((e) => e.messageId)).toEqual(['ok-1', 'ok-2']);
    const live = await s.api('GET', `/v2/sources/${s.id}/live-events`);
    expect(live.body.refused).toEqual({ events: 1, lastAt: expect.any(String) });
    expect(live.body.events.map((e: Record<string, unknown>) => e.messageId)).toEqual(['big-1', 'ok-2', 'ok-1']);
    expect(live.body.events[0]).toEqual({
      type: 'track',
      event: 'Huge',
      messageId: 'big-1',
      anonymousId: 'a',
      receivedAt: expect.any(String),
      refused: { reason: expect.stringMatching(/^event is \d+ bytes, over the limit of 32768$/), bytes: expect.any(Number) },
    });
    const alone = await data('POST', '/v1/track', { auth: s.auth, body: { anonymousId: 'a', messageId: 'big-2', properties: { blob: 'x'.repeat(40_000) } } });
    expect(alone.status).toBe(413);
    expect((await s.api('GET', `/v2/sources/${s.id}/live-events`)).body.refused.events).toBe(2);
  });

  it("records the source's first event time once", async () => {
    const s = await source();
    expect((await s.api('GET', `/v2/sources/${s.id}`)).body.source.firstEventAt).toBeUndefined();
    await data('POST', '/v1/track', { auth: s.auth, body: { anonymousId: 'a' } });
    const first = (await s.api('GET', `/v2/sources/${s.id}`)).body.source.firstEventAt;
    expect(first).toEqual(expect.any(String));
    await data('POST', '/v1/track', { auth: s.auth, body: { anonymousId: 'a' } });
    expect((await s.api('GET', `/v2/sources/${s.id}`)).body.source.firstEventAt).toBe(first);
  });
});
