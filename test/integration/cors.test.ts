import { CORS } from '../../shared/contract/cors';
import { bearer, call, startTestRuntime, type TestRuntime } from '../support/runtime';

/**
 * The console calls the control plane from its own origin: exactly that origin is allowed, on the handlers'
 * answers, on the gateway's own (a refused token, an unknown route) and on preflights; any other gets nothing.
 */
const CONSOLE = 'https://console.weir.test';
let runtime: TestRuntime;
let token: string;

beforeAll(async () => {
  process.env[CORS.originsVariable] = `${CONSOLE},http://127.0.0.1:3001`;
  runtime = await startTestRuntime();
  token = (await runtime.newWorkspace()).token;
});
afterAll(async () => {
  await runtime?.stop();
  delete process.env[CORS.originsVariable];
});

const from = (origin: string) => ({ headers: { Origin: origin } });

describe('CORS for the console', () => {
  it('answers a preflight with the exact origin and the contract’s methods and headers', async () => {
    const answer = await call(runtime.controlUrl, 'OPTIONS', '/v2/sources/abc', {
      headers: {
        Origin: CONSOLE,
        'Access-Control-Request-Method': 'PATCH',
        'Access-Control-Request-Headers': 'authorization,content-type',
      },
    });
    expect(answer.status).toBe(204);
    expect(answer.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(answer.headers.get('access-control-allow-methods')).toBe(CORS.allowMethods.join(','));
    expect(answer.headers.get('access-control-allow-headers')).toBe(CORS.allowHeaders.join(','));
    expect(answer.headers.get('access-control-max-age')).toBe(String(CORS.maxAgeSeconds));
  });

  it('lets the console read handler answers, errors included', async () => {
    const listed = await call(runtime.controlUrl, 'GET', '/v2/sources', { auth: bearer(token), ...from(CONSOLE) });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    expect(listed.headers.get('vary')).toBe('Origin');
    const invalid = await call(runtime.controlUrl, 'POST', '/v2/sources', { auth: bearer(token), body: { name: 42 }, ...from(CONSOLE) });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('access-control-allow-origin')).toBe(CONSOLE);
  });

  it('lets the console read the gateway’s own refusals', async () => {
    const refused = await call(runtime.controlUrl, 'GET', '/v2/sources', { auth: bearer('weir_wrong'), ...from(CONSOLE) });
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Invalid Authorization Header' });
    expect(refused.headers.get('access-control-allow-origin')).toBe(CONSOLE);
    const unknown = await call(runtime.controlUrl, 'GET', '/v2/nothing', from(CONSOLE));
    expect(unknown.headers.get('access-control-allow-origin')).toBe(CONSOLE);
  });

  it('never allows another origin, nor answers with a wildcard', async () => {
    for (const origin of ['https://evil.test', 'https://console.weir.test.evil.test', 'null']) {
      const preflight = await call(runtime.controlUrl, 'OPTIONS', '/v2/sources', {
        headers: { Origin: origin, 'Access-Control-Request-Method': 'GET' },
      });
      expect(preflight.headers.get('access-control-allow-origin')).toBeNull();
      const listed = await call(runtime.controlUrl, 'GET', '/v2/sources', { auth: bearer(token), ...from(origin) });
      expect(listed.status).toBe(200);
      expect(listed.headers.get('access-control-allow-origin')).toBeNull();
    }
  });

  it("gives the console's origin nothing of its own on the data plane: only the browser routes, open to every page", async () => {
    const health = await call(runtime.dataUrl, 'GET', '/health', from(CONSOLE));
    expect(health.headers.get('access-control-allow-origin')).toBeNull();
    // Ingestion answers any page alike (test/integration/web-sources.test.ts), the console's as another.
    const ingest = await call(runtime.dataUrl, 'POST', '/v1/track', { body: { anonymousId: 'a' }, ...from('https://any.example') });
    expect([ingest.status, ingest.headers.get('access-control-allow-origin')]).toEqual([401, 'https://any.example']);
  });
});
