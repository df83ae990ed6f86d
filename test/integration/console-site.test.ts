import { readFileSync } from 'node:fs';
import path from 'node:path';
import { CORS } from '../../shared/contract/cors';
import { CONSOLE_DIST, serveConsole, type ConsoleSite } from '../../infra/local/console-site';

/**
 * The console's local static site: the build, its config.json naming the planes, the headers CloudFront
 * sets in AWS, only files of the build, and its origin added to the control plane's CORS origins.
 */
let url: string;
let site: ConsoleSite;
const saved = process.env[CORS.originsVariable];
beforeAll(async () => {
  process.env[CORS.originsVariable] = 'https://other.console.test';
  site = await serveConsole({ controlUrl: 'http://127.0.0.1:3999', dataUrl: 'http://127.0.0.1:8999' }, 0);
  url = site.url;
});
afterAll(async () => {
  await site?.close();
  if (saved === undefined) delete process.env[CORS.originsVariable];
  else process.env[CORS.originsVariable] = saved;
});

describe('the local console site', () => {
  it('serves the build with a Content-Security-Policy that lets pages call only the control plane', async () => {
    const answer = await fetch(`${url}/`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(await answer.text()).toBe(readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8'));
    expect(answer.headers.get('content-security-policy')).toBe(
      "default-src 'self'; connect-src 'self' http://127.0.0.1:3999; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'",
    );
    expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
  });

  it('serves config.json with the planes’ URLs, never cached', async () => {
    const answer = await fetch(`${url}/config.json`);
    expect(await answer.json()).toEqual({ apiUrl: 'http://127.0.0.1:3999', dataPlaneUrl: 'http://127.0.0.1:8999' });
    expect(answer.headers.get('cache-control')).toBe('no-store');
  });

  it('serves only files of the build: other paths are the app, a malformed one a 400', async () => {
    const index = readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
    for (const escape of ['/..%2f..%2fpackage.json', '/%2e%2e/%2e%2e/package.json', '/sources/anything']) {
      const answer = await fetch(`${url}${escape}`);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toBe(index);
    }
    expect((await fetch(`${url}/%E0%A4%A`)).status).toBe(400);
    // The server is still there after it.
    expect((await fetch(`${url}/config.json`)).status).toBe(200);
  });

  it('adds its own origins to those CORS allows, keeping the ones set', () => {
    const port = new URL(url).port;
    expect(process.env[CORS.originsVariable]?.split(',')).toEqual(['https://other.console.test', `http://127.0.0.1:${port}`, `http://localhost:${port}`]);
  });
});
