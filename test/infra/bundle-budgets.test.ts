import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { build } from 'esbuild';
import {
  bundleAll,
  bundleDestinationCode,
  bundleOnDemand,
  destinationCodeImports,
  heaviest,
  initEnv,
  KB,
  onDemandImports,
  type BuiltBundle,
} from '../../infra/bundle-build';
import { BUNDLE_SETTINGS, DESTINATION_CODE_MODULES, EXTERNAL_MODULES, FUNCTION_BUNDLES, ON_DEMAND_MODULES } from '../../infra/bundles';
import { DESTINATION_DEFINITIONS } from '../../shared/destinations/definitions';

// Every function bundled as CDK bundles it (infra/bundles.ts): none outgrows its budget, and each ships the
// on-demand packages its bundle may import, no more and no fewer; the destination types' code is bundled on its
// own beside the functions that deliver, test or delete, and loaded from there.

let dir: string;
let bundles: BuiltBundle[];
let codes: Awaited<ReturnType<typeof bundleDestinationCode>>;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-budgets-'));
  bundles = await bundleAll(dir);
  codes = await bundleDestinationCode(dir);
}, 120_000);

afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('every function of the contract is bundled', () => {
  expect(bundles.map((b) => b.name).sort()).toEqual(Object.keys(FUNCTION_BUNDLES).sort());
});

test('no function bundle outgrows its budget', () => {
  const over = bundles
    .filter((b) => b.bytes > b.budgetKb * KB)
    .map((b) => `${b.name}: ${(b.bytes / KB).toFixed(1)} KB > ${b.budgetKb} KB; heaviest: ${heaviest(b.metafile, 12).join(', ')}`);
  expect(over).toEqual([]);
});

test('a function ships exactly the on-demand packages its bundle and the destination code it ships import', () => {
  const ofCode = codes.flatMap((c) => onDemandImports(c.metafile));
  const mismatched = bundles
    .map((b) => ({
      name: b.name,
      imports: [...new Set([...onDemandImports(b.metafile), ...(b.destinationCode ? ofCode : [])])].sort(),
      ships: [...(b.onDemand ?? [])].sort(),
    }))
    .filter((b) => b.imports.join() !== b.ships.join());
  expect(mismatched).toEqual([]);
});

test("a function that ships the destination types' code requires each from beside its bundle and carries none of it", () => {
  const all = DESTINATION_CODE_MODULES.map((m) => m.path).sort();
  const code = new Set(DESTINATION_CODE_MODULES.map((m) => m.entry));
  const mismatched = bundles
    .map((b) => ({ name: b.name, requires: destinationCodeImports(b.metafile), carries: Object.keys(b.metafile.inputs).filter((i) => code.has(i)) }))
    .filter((b) => b.requires.join() !== (FUNCTION_BUNDLES[b.name]?.destinationCode ? all : []).join() || b.carries.length > 0);
  expect(mismatched).toEqual([]);
});

test("each destination type's code is bundled without its definition and without zod's full build", () => {
  expect(codes.map((c) => c.folder).sort()).toEqual(DESTINATION_CODE_MODULES.map((m) => m.folder).sort());
  const carrying = codes
    .map((c) => ({ folder: c.folder, inputs: Object.keys(Object.values(c.metafile.outputs)[0]?.inputs ?? {}) }))
    .map(({ folder, inputs }) => ({ folder, heavy: inputs.filter((i) => i.endsWith('/definition.ts') || i.includes('node_modules/zod/v4/classic/')) }))
    .filter((c) => c.heavy.length > 0);
  expect(carrying).toEqual([]);
});

test("the registry, bundled as a handler carries it, loads each type's code from beside it and tells its refusals", async () => {
  // shared/destinations/index.ts (the registry and buildRequests) bundled beside the types' code, as in a function.
  const file = path.join(dir, 'registry.js');
  await build({
    ...BUNDLE_SETTINGS,
    entryPoints: ['shared/destinations/index.ts'],
    bundle: true,
    outfile: file,
    external: EXTERNAL_MODULES,
    logLevel: 'error',
  });
  const script = `
    const d = require(${JSON.stringify(file)});
    const names = ${JSON.stringify([...DESTINATION_DEFINITIONS.keys()])};
    const types = names.map((n) => d.destinationType(n)).map((t) => t && [t.name, t.delivery]);
    // A transform's refusal, thrown by the webhook code's own copy of DestinationError: an outcome, not a failure logged.
    const refusal = d.buildRequests(d.destinationType('WEBHOOK'), { type: 'track' }, { webhookUrl: 'not a url' });
    console.log(JSON.stringify({ types, refusal }));`;
  // Its log lines on (the test run silences them): a refusal taken for a failure would print one.
  const env = { ...initEnv(), LOG_LEVEL: 'INFO' };
  const run = spawnSync(process.execPath, ['-e', script], { cwd: dir, env, encoding: 'utf8' });
  expect(run.status).toBe(0);
  const result = JSON.parse(run.stdout.trim().split('\n').at(-1)!) as { types: [string, string][]; refusal: unknown };
  expect(result.types).toEqual([...DESTINATION_DEFINITIONS.keys()].map((name) => [name, expect.stringMatching(/^(http|server)$/)]));
  expect(result.refusal).toEqual({ ok: false, error: 'Invalid URL in destination config' });
  expect(`${run.stdout}${run.stderr}`).not.toContain('destination transform failed');
}, 60_000);

test.each(ON_DEMAND_MODULES)('%s bundled on its own loads where a handler imports it from', async (name) => {
  const { file } = await bundleOnDemand(name, dir);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(file) as Record<string, unknown>;
  expect(Object.keys(loaded).length).toBeGreaterThan(0);
});
