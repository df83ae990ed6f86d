import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { consoleSecurityHeaders } from '../../shared/contract/console';
import { CORS } from '../../shared/contract/cors';

/**
 * The console locally: built with Vite when its build is missing or older than its sources, then served as
 * the static site CloudFront serves in AWS, on its own origin (CONSOLE_PORT, default 3001), so the browser
 * calls the control plane cross-origin exactly as it does there. Its origin is the one CORS allows.
 */
const ROOT = path.resolve(__dirname, '../..');
export const CONSOLE_DIR = path.join(ROOT, 'console');
export const CONSOLE_DIST = path.join(CONSOLE_DIR, 'dist');
/** Written last by a build: its time is the build's. */
const STAMP = path.join(CONSOLE_DIST, '.built');

function newestChange(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(stat.mtimeMs, ...readdirSync(entry).map((name) => newestChange(path.join(entry, name))));
}

/** What a build reads: the console's sources, the reference pages it renders, the shared code it imports and the locked dependencies. */
const SOURCES = [
  'console/src',
  'console/index.html',
  'console/vite.config.mts',
  'console/reference-pages.ts',
  'docs/reference/destinations',
  'shared',
  'package-lock.json',
].map((p) => path.join(ROOT, p));

export function consoleBuildIsFresh(): boolean {
  if (!existsSync(STAMP)) return false;
  return statSync(STAMP).mtimeMs >= Math.max(...SOURCES.map(newestChange));
}

/**
 * Builds into a folder of its own, then swaps it in: two `npm start`s building at once (tests do) never
 * serve a half-written build.
 */
export function buildConsole(): void {
  const outDir = `${CONSOLE_DIST}.${process.pid}`;
  const vite = path.join(ROOT, 'node_modules/vite/bin/vite.js');
  const built = spawnSync(process.execPath, [vite, 'build', '--config', path.join(CONSOLE_DIR, 'vite.config.mts'), '--outDir', outDir, '--logLevel', 'warn'], {
    cwd: ROOT,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, VITE_CONFIG_NATIVE_IGNORE_WARNING: 'true' },
  });
  if (built.status !== 0) throw new Error(`console build failed (vite exited ${built.status})`);
  writeFileSync(path.join(outDir, '.built'), new Date().toISOString());
  rmSync(CONSOLE_DIST, { recursive: true, force: true });
  try {
    renameSync(outDir, CONSOLE_DIST);
  } catch {
    rmSync(outDir, { recursive: true, force: true }); // another build got there first, from the same sources
  }
}

export function ensureConsoleBuilt(): void {
  if (!consoleBuildIsFresh()) buildConsole();
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

/** The headers CloudFront's response-headers policy sets in AWS (infra/stacks/console-site.ts). */
function securityHeaders(apiUrl: string): Record<string, string> {
  const headers = consoleSecurityHeaders(new URL(apiUrl).origin);
  return {
    'Content-Security-Policy': headers.contentSecurityPolicy,
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': headers.referrerPolicy,
  };
}

export interface ConsoleSite {
  url: string;
  close(): Promise<void>;
}

/** Serves the console and its config.json, and lets its origin call the control plane (CORS). */
export async function serveConsole(urls: { controlUrl: string; dataUrl: string }, port = Number(process.env.CONSOLE_PORT || 3001)): Promise<ConsoleSite> {
  ensureConsoleBuilt();
  const config = JSON.stringify({ apiUrl: urls.controlUrl, dataPlaneUrl: urls.dataUrl });
  const headers = securityHeaders(urls.controlUrl);
  const server = createServer((req, res) => {
    let pathname: string;
    try {
      pathname = decodeURIComponent(new URL(req.url ?? '/', 'http://localhost').pathname);
    } catch {
      res.writeHead(400, { 'Content-Type': 'text/plain; charset=utf-8' });
      return void res.end('Malformed path');
    }
    if (pathname === '/config.json') {
      res.writeHead(200, { ...headers, 'Content-Type': TYPES['.json'], 'Cache-Control': 'no-store' });
      return void res.end(config);
    }
    const file = path.join(CONSOLE_DIST, pathname === '/' ? 'index.html' : pathname);
    // Only files inside the build; every other path is the app itself (its routes live in the hash).
    const inside = file.startsWith(CONSOLE_DIST + path.sep) && existsSync(file) && statSync(file).isFile();
    const served = inside ? file : path.join(CONSOLE_DIST, 'index.html');
    const type = TYPES[path.extname(served)] ?? 'application/octet-stream';
    res.writeHead(200, {
      ...headers,
      'Content-Type': type,
      'Cache-Control': served.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache',
    });
    res.end(readFileSync(served));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const actual = typeof address === 'object' && address ? address.port : port;
  const url = `http://127.0.0.1:${actual}`;
  // Both names of this machine reach it; each is an exact origin.
  const origins = new Set([...(process.env[CORS.originsVariable] ?? '').split(',').filter(Boolean), url, `http://localhost:${actual}`]);
  process.env[CORS.originsVariable] = [...origins].join(',');
  return { url, close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())) };
}
