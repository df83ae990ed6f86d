import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import { SANDBOX_WORKER_BUNDLE_NAME, SANDBOX_WORKER_SOURCE, sandboxWorkerLaunch } from '../../../shared/sandbox/worker-entry';

const sandboxIndex = path.join(path.dirname(SANDBOX_WORKER_SOURCE), 'index.ts');

describe('locating the sandbox worker', () => {
  it('outside a bundle the TypeScript source is loaded through tsx', () => {
    expect(fs.existsSync(SANDBOX_WORKER_SOURCE)).toBe(true);
    const launch = sandboxWorkerLaunch();
    expect(launch.eval).toBe(true);
    expect(launch.script).toContain("req('tsx/cjs/api').register()");
    expect(launch.script).toContain(JSON.stringify(SANDBOX_WORKER_SOURCE));
  });

  it('an esbuild CommonJS bundle runs transformations with the bundled worker beside it', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-sandbox-bundle-'));
    try {
      const entry = path.join(dir, 'entry.ts');
      fs.writeFileSync(
        entry,
        [
          `import { runTransformation, shutdownSandbox } from ${JSON.stringify(sandboxIndex)};`,
          `import { sandboxWorkerLaunch } from ${JSON.stringify(path.join(path.dirname(SANDBOX_WORKER_SOURCE), 'worker-entry.ts'))};`,
          'async function main() {',
          '  const result = await runTransformation({',
          '    code: "import { up } from \\"strings\\";\\nexport function transformEvent(e) { return { name: up(e.name) }; }",',
          '    libraries: [{ importName: "strings", name: "strings", code: "export const up = (s) => s.toUpperCase();" }],',
          '    events: [{ message: { messageId: "b1", name: "bundled" }, metadata: { sourceId: "s" } }],',
          '  });',
          '  console.log(JSON.stringify({ launch: sandboxWorkerLaunch().eval ? "eval" : "file", result }));',
          '  await shutdownSandbox();',
          '}',
          'main().catch((err) => { console.error(err); process.exit(1); });',
        ].join('\n'),
      );
      await build({
        entryPoints: { main: entry, [path.basename(SANDBOX_WORKER_BUNDLE_NAME, '.js')]: SANDBOX_WORKER_SOURCE },
        bundle: true,
        platform: 'node',
        format: 'cjs',
        target: 'node20',
        outdir: dir,
        logLevel: 'silent',
      });
      expect(fs.existsSync(path.join(dir, SANDBOX_WORKER_BUNDLE_NAME))).toBe(true);
      // Run from another directory with no node_modules around: everything must come from the bundle.
      const run = spawnSync(process.execPath, [path.join(dir, 'main.js')], { cwd: os.tmpdir(), encoding: 'utf8', timeout: 20_000 });
      expect(run.stderr).toBe('');
      expect(JSON.parse(run.stdout.trim())).toEqual({
        launch: 'file',
        result: { transformedEvents: [{ transformedEvent: { name: 'BUNDLED' }, metadata: { sourceId: 's' } }], logs: [] },
      });
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
