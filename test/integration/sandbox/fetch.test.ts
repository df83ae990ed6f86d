import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { RESOLVES_TO_NON_PUBLIC } from '../../../shared/outbound/guard';
import { runTransformation, SandboxError, shutdownSandbox } from '../../../shared/sandbox';

let server: http.Server;
let base: string;
let hits = 0;
const savedAllowlist = process.env.WEIR_OUTBOUND_ALLOWLIST;

beforeAll(async () => {
  server = http.createServer((req, res) => {
    hits++;
    if (req.url === '/json') return void res.writeHead(200, { 'content-type': 'application/json', 'x-test': 'yes' }).end('{"answer":42}');
    if (req.url === '/text') return void res.writeHead(200, { 'content-type': 'text/plain' }).end('plain words');
    if (req.url === '/echo') {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () =>
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ method: req.method, auth: req.headers.authorization ?? null, body })),
      );
      return;
    }
    if (req.url === '/hang') {
      const timer = setTimeout(() => res.end('{}'), 5000);
      req.on('close', () => clearTimeout(timer));
      return;
    }
    res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"boom"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  if (savedAllowlist === undefined) delete process.env.WEIR_OUTBOUND_ALLOWLIST;
  else process.env.WEIR_OUTBOUND_ALLOWLIST = savedAllowlist;
  await shutdownSandbox();
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  hits = 0;
});

async function transform(code: string, deadlineMs = 4000) {
  const result = await runTransformation({
    code,
    libraries: [],
    events: [{ message: { messageId: 'f1', base }, metadata: { m: 1 } }],
    limits: { deadlineMs },
  });
  const [entry] = result.transformedEvents;
  if (!entry || !('transformedEvent' in entry)) throw new Error(`unexpected result ${JSON.stringify(result)}`);
  return entry.transformedEvent;
}

describe('with the local server allow-listed', () => {
  beforeEach(() => {
    process.env.WEIR_OUTBOUND_ALLOWLIST = '127.0.0.1';
  });

  it('fetchV2 resolves url, status, headers and a JSON-parsed body', async () => {
    const out = await transform('export async function transformEvent(e) { const r = await fetchV2(e.base + "/json"); return { r }; }');
    expect(out.r).toEqual({
      url: `${base}/json`,
      status: 200,
      headers: expect.objectContaining({ 'content-type': 'application/json', 'x-test': 'yes' }),
      body: { answer: 42 },
    });
  });

  it('fetchV2 keeps a text body as text and a non-2xx status as a response', async () => {
    const out = await transform(`export async function transformEvent(e) {
      const t = await fetchV2(e.base + "/text"); const f = await fetchV2(e.base + "/fail");
      return { text: t.body, status: f.status, failBody: f.body };
    }`);
    expect(out).toEqual({ text: 'plain words', status: 500, failBody: { error: 'boom' } });
  });

  it('fetchV2 sends method, headers and body', async () => {
    const out = await transform(`export async function transformEvent(e) {
      const r = await fetchV2(e.base + "/echo", { method: "POST", headers: { authorization: "Bearer t" }, body: JSON.stringify({ a: 1 }) });
      return r.body;
    }`);
    expect(out).toEqual({ method: 'POST', auth: 'Bearer t', body: '{"a":1}' });
  });

  it('fetch resolves the parsed JSON body', async () => {
    const out = await transform('export async function transformEvent(e) { return { v: await fetch(e.base + "/json") }; }');
    expect(out).toEqual({ v: { answer: 42 } });
  });

  it('fetch resolves "ERROR" for a body that is not JSON', async () => {
    const out = await transform('export async function transformEvent(e) { return { v: await fetch(e.base + "/text") }; }');
    expect(out).toEqual({ v: 'ERROR' });
  });

  it('several fetches run concurrently within one invocation', async () => {
    const out = await transform(`export async function transformEvent(e) {
      const all = await Promise.all([1, 2, 3, 4].map(() => fetch(e.base + "/json")));
      return { n: all.filter((x) => x.answer === 42).length };
    }`);
    expect(out).toEqual({ n: 4 });
    expect(hits).toBe(4);
  });

  it('a request that outlives the deadline ends the invocation on time', async () => {
    const started = performance.now();
    let failure: unknown;
    try {
      await transform('export async function transformEvent(e) { await fetch(e.base + "/hang"); return {}; }', 300);
    } catch (err) {
      failure = err;
    }
    expect(failure).toBeInstanceOf(SandboxError);
    expect((failure as SandboxError).kind).toBe('timeout');
    expect(performance.now() - started).toBeLessThanOrEqual(350);
  });
});

describe('without the allow-list', () => {
  beforeEach(() => {
    delete process.env.WEIR_OUTBOUND_ALLOWLIST;
  });
  afterEach(() => {
    expect(hits).toBe(0);
  });

  it('the local server is refused and fetch resolves "ERROR"', async () => {
    const out = await transform('export async function transformEvent(e) { return { v: await fetch(e.base + "/json") }; }');
    expect(out).toEqual({ v: 'ERROR' });
  });

  it.each([
    ['the local server', (b: string) => `${b}/json`, 'blocked request to non-public address: 127.0.0.1'],
    ['the cloud metadata address', () => 'http://169.254.169.254/latest/meta-data/', 'blocked request to non-public address: 169.254.169.254'],
    ['an IPv6 loopback literal', () => 'http://[::1]/', 'blocked request to non-public address: ::1'],
    ['a private address', () => 'http://10.0.0.1/', 'blocked request to non-public address: 10.0.0.1'],
    ['a non-http protocol', () => 'gopher://example.com/', 'invalid protocol, only http and https are supported'],
    ['a missing url', () => '', 'fetch url is required'],
    ['an unparsable url', () => 'http://[bad/', 'invalid url, Invalid URL'],
  ])('fetchV2 to %s rejects with the reference message', async (_what, url, message) => {
    const out = await transform(`export async function transformEvent(e) {
      try { await fetchV2(${JSON.stringify(url(base))}); return { ok: true }; }
      catch (err) { return { message: err.message, isObject: typeof err === 'object' }; }
    }`);
    expect(out).toEqual({ message, isObject: true });
  });

  it('fetchV2 to localhost names the rule and the name, not the resolved address', async () => {
    const out = await transform(`export async function transformEvent(e) {
      try { await fetchV2("http://localhost:9/x"); return { ok: true }; } catch (err) { return { message: err.message }; }
    }`);
    expect(out.message).toBe(`request to http://localhost:9/x failed, reason: localhost ${RESOLVES_TO_NON_PUBLIC}`);
  });

  it('fetchV2 without arguments rejects with "fetch url is required"', async () => {
    const out = await transform('export async function transformEvent() { return fetchV2().then(() => ({}), (err) => ({ m: err.message })); }');
    expect(out).toEqual({ m: 'fetch url is required' });
  });
});
