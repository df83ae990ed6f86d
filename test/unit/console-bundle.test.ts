import { readFileSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONSOLE_DIST, consoleBuildIsFresh } from '../../infra/local/console-site';

/**
 * The console's initial JavaScript (what index.html loads before the first page renders: its module script
 * and the chunks it preloads) stays within 200 KB gzipped. Pages that need more (the code editor) load it
 * on demand. jest's globalSetup builds the console when its build is missing or stale.
 */
const BUDGET_BYTES = 200 * 1024;

/** index.html's module scripts and preloads, and every chunk they import statically (not `import()`). */
function initialScripts(): string[] {
  const html = readFileSync(path.join(CONSOLE_DIST, 'index.html'), 'utf8');
  const entries = [...html.matchAll(/<script[^>]*type="module"[^>]*src="([^"]+)"/g), ...html.matchAll(/<link[^>]*rel="modulepreload"[^>]*href="([^"]+)"/g)];
  const found = new Set(entries.map((m) => path.join(CONSOLE_DIST, m[1] ?? '')));
  for (const file of found) {
    for (const m of readFileSync(file, 'utf8').matchAll(/\bfrom\s*["'](\.{1,2}\/[^"']+)["']|\bimport\s*["'](\.{1,2}\/[^"']+)["']/g)) {
      found.add(path.resolve(path.dirname(file), m[1] ?? m[2] ?? ''));
    }
  }
  return [...found];
}

describe('the console build', () => {
  it('is built from the current sources', () => {
    expect(consoleBuildIsFresh()).toBe(true);
  });

  it('loads at most 200 KB of gzipped JavaScript before the first page', () => {
    const files = initialScripts();
    expect(files.length).toBeGreaterThan(0);
    const gzipped = files.reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
    expect(gzipped).toBeLessThanOrEqual(BUDGET_BYTES);
  });
});
