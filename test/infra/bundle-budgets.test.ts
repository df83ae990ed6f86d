import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleAll, bundleOnDemand, heaviest, KB, onDemandImports, type BuiltBundle } from '../../infra/bundle-build';
import { FUNCTION_BUNDLES, ON_DEMAND_MODULES } from '../../infra/bundles';

// Every function bundled as CDK bundles it (infra/bundles.ts): none outgrows its budget, and each ships the
// on-demand packages its bundle may import, no more and no fewer.

let dir: string;
let bundles: BuiltBundle[];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-budgets-'));
  bundles = await bundleAll(dir);
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

test('a function ships exactly the on-demand packages its bundle imports', () => {
  const mismatched = bundles
    .map((b) => ({ name: b.name, imports: onDemandImports(b.metafile), ships: [...(b.onDemand ?? [])].sort() }))
    .filter((b) => b.imports.join() !== b.ships.join());
  expect(mismatched).toEqual([]);
});

test.each(ON_DEMAND_MODULES)('%s bundled on its own loads where a handler imports it from', async (name) => {
  const { file } = await bundleOnDemand(name, dir);
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const loaded = require(file) as Record<string, unknown>;
  expect(Object.keys(loaded).length).toBeGreaterThan(0);
});
