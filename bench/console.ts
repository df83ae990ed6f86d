import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../infra/local/dynamodb-local';
import { launch } from './support/browser';

// Console benchmark: against `npm start` as a user runs it, the time from opening the console (signed in, a
// cold browser cache each time) to the first rendered list, the Sources page's list of the workspace's sources.

const RUNS = 7;
const TOKEN = 'weir_console-bench-token-0123456789abcdefghijklmnop';

async function main() {
  const home = mkdtempSync(path.join(tmpdir(), 'weir-console-bench-'));
  const [control, data, site] = [await freePort(), await freePort(), await freePort()];
  const env = {
    ...process.env,
    WEIR_HOME: home,
    WEIR_IN_MEMORY: '1',
    WEIR_BOOTSTRAP_EMAIL: 'bench@weir.test',
    WEIR_BOOTSTRAP_TOKEN: TOKEN,
    PORT: String(control),
    DATA_PLANE_PORT: String(data),
    CONSOLE_PORT: String(site),
  };
  const child = spawn('npm', ['start'], { env, detached: true, stdio: 'ignore' });
  const controlUrl = `http://127.0.0.1:${control}`;
  const browser = await launch();
  try {
    const deadline = Date.now() + 60_000;
    while (
      !(await fetch(`${controlUrl}/health`).then(
        (r) => r.ok,
        () => false,
      ))
    ) {
      if (Date.now() > deadline) throw new Error('npm start did not answer within 60 s');
      await sleep(200);
    }
    for (let i = 0; i < 5; i++) {
      await fetch(`${controlUrl}/v2/sources`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ name: `Source ${i}` }),
      });
    }
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) {
      const context = await browser.newContext();
      await context.addInitScript(`sessionStorage.setItem('weir.token', ${JSON.stringify(TOKEN)})`);
      const page = await context.newPage();
      const started = performance.now();
      await page.goto(`http://127.0.0.1:${site}/#/sources`);
      await page.locator('ul[aria-label="Sources"] li').first().waitFor();
      times.push(performance.now() - started);
      await context.close();
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!.toFixed(0);
    console.log(`console: time to the first rendered list (Sources, cold cache, ${RUNS} runs): p50 ${at(0.5)} ms, max ${at(1)} ms`);
  } finally {
    await browser.close();
    process.kill(-(child.pid as number), 'SIGINT');
    await new Promise((resolve) => child.once('exit', resolve));
    rmSync(home, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
