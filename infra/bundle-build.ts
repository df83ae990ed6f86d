import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import { isBuiltin } from 'node:module';
import path from 'node:path';
import { build, type Metafile } from 'esbuild';
import {
  BUNDLE_SETTINGS,
  DESTINATION_CODE_MODULES,
  EXTERNAL_MODULES,
  FUNCTION_BUNDLES,
  RUNTIME_MODULES,
  type FunctionBundle,
  type OnDemandModule,
} from './bundles';

/**
 * Bundles functions with esbuild's API and the settings CDK's NodejsFunction passes to its CLI
 * (infra/bundles.ts), with a metafile: what `npm run bench` and the budget test measure, without a synth.
 */

const REPO_ROOT = path.resolve(__dirname, '..');
export const KB = 1024;

export interface BuiltBundle extends FunctionBundle {
  name: string;
  /** The handler's bundle, as Lambda loads it. */
  file: string;
  bytes: number;
  metafile: Metafile;
}

/** Bundles one function's handler into `outDir/<name>/index.js`. */
export async function bundleFunction(name: string, outDir: string): Promise<BuiltBundle> {
  const spec = FUNCTION_BUNDLES[name];
  if (!spec) throw new Error(`no function ${name} in infra/bundles.ts`);
  const file = path.join(outDir, name, 'index.js');
  const { metafile } = await build({
    ...BUNDLE_SETTINGS,
    entryPoints: [path.join(REPO_ROOT, spec.entry)],
    bundle: true,
    outfile: file,
    external: EXTERNAL_MODULES,
    absWorkingDir: REPO_ROOT,
    metafile: true,
    logLevel: 'error',
  });
  return { name, ...spec, file, bytes: fs.statSync(file).size, metafile };
}

/** Bundles every function of the contract, a few at a time. */
export async function bundleAll(outDir: string): Promise<BuiltBundle[]> {
  const names = Object.keys(FUNCTION_BUNDLES);
  const built: BuiltBundle[] = [];
  for (let i = 0; i < names.length; i += 4) built.push(...(await Promise.all(names.slice(i, i + 4).map((n) => bundleFunction(n, outDir)))));
  return built;
}

/** An on-demand package bundled as CDK ships it: `outDir/node_modules/<name>/index.js`. */
export async function bundleOnDemand(name: OnDemandModule, outDir: string): Promise<{ file: string; bytes: number }> {
  const file = path.join(outDir, 'node_modules', name, 'index.js');
  await build({ ...BUNDLE_SETTINGS, entryPoints: [name], bundle: true, outfile: file, external: RUNTIME_MODULES, absWorkingDir: REPO_ROOT, logLevel: 'error' });
  return { file, bytes: fs.statSync(file).size };
}

/** Every destination type's code bundled as CDK ships it, in one esbuild run: `outDir/destinations/<folder>/index.js`. */
export async function bundleDestinationCode(outDir: string): Promise<{ folder: string; file: string; bytes: number; metafile: Metafile }[]> {
  const { metafile } = await build({
    ...BUNDLE_SETTINGS,
    entryPoints: DESTINATION_CODE_MODULES.map(({ entry, out }) => ({ in: entry, out })),
    bundle: true,
    outdir: outDir,
    external: EXTERNAL_MODULES,
    absWorkingDir: REPO_ROOT,
    metafile: true,
    logLevel: 'error',
  });
  return DESTINATION_CODE_MODULES.map(({ folder, out }) => {
    const file = path.join(outDir, `${out}.js`);
    const [output] = Object.entries(metafile.outputs).filter(([name]) => path.resolve(REPO_ROOT, name) === file);
    if (!output) throw new Error(`no bundle of destination type ${folder}`);
    // The metafile of this type's output alone, as the other helpers here read a function's.
    return { folder, file, bytes: fs.statSync(file).size, metafile: { inputs: metafile.inputs, outputs: Object.fromEntries([output]) } };
  });
}

/** The handler output's inputs, by what they are: a package (`zod`, `@aws-lambda-powertools/logger`) or a project file. */
export function bytesByModule(metafile: Metafile): Map<string, number> {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const sizes = new Map<string, number>();
  for (const [input, { bytesInOutput }] of Object.entries(output?.inputs ?? {})) {
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1];
    const key = pkg ?? input;
    sizes.set(key, (sizes.get(key) ?? 0) + bytesInOutput);
  }
  return sizes;
}

/** The packages and files that weigh most in a bundle, largest first, as `name 12.3 KB`. */
export const heaviest = (metafile: Metafile, count = 8): string[] =>
  [...bytesByModule(metafile)]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([module, bytes]) => `${module} ${(bytes / KB).toFixed(1)} KB`);

/** The external imports a bundle makes that are not the runtime's (each must be shipped beside it). */
function shippedImports(metafile: Metafile): string[] {
  const output = Object.values(metafile.outputs).find((o) => o.entryPoint);
  const runtime = RUNTIME_MODULES.map((m) => new RegExp(`^${m.replace('*', '.*')}$`));
  const names = (output?.imports ?? []).filter((i) => i.external && !i.path.startsWith('node:') && !runtime.some((r) => r.test(i.path))).map((i) => i.path);
  return [...new Set(names)].filter((n) => !isBuiltin(n)).sort();
}

const DESTINATION_CODE_PATHS = new Set(DESTINATION_CODE_MODULES.map((m) => m.path));

/** The on-demand packages a bundle imports (infra/bundles.ts: ON_DEMAND_MODULES). */
export const onDemandImports = (metafile: Metafile): string[] => shippedImports(metafile).filter((n) => !DESTINATION_CODE_PATHS.has(n));

/** The destination types' code a bundle `require`s (`./destinations/<folder>`), sorted. */
export const destinationCodeImports = (metafile: Metafile): string[] => shippedImports(metafile).filter((n) => DESTINATION_CODE_PATHS.has(n));

/**
 * Module-init time of bundles: each `require`d in a fresh Node process and timed inside it (process
 * start-up left out), `rounds` times, the bundles taking turns in every round so that a busy machine weighs
 * on all alike; the median of each, in ms, by file.
 */
export function initMs(files: string[], rounds: number): Map<string, number> {
  const times = new Map<string, number[]>(files.map((f) => [f, []]));
  for (let round = 0; round < rounds; round++) for (const file of files) times.get(file)?.push(requireMs(file));
  return new Map([...times].map(([file, all]) => [file, median(all)]));
}

function requireMs(file: string): number {
  const script = `const t=process.hrtime.bigint();require(${JSON.stringify(file)});process.stdout.write(String(Number(process.hrtime.bigint()-t)/1e6))`;
  const out = execFileSync(process.execPath, ['--no-warnings', '-e', script], {
    cwd: path.dirname(file),
    encoding: 'utf8',
    env: initEnv(),
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return Number(out);
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? NaN;
};

/**
 * A Lambda's environment at init: a region, and the AWS SDK v3 resolvable (the runtime provides it; here
 * the project's own node_modules do), so a handler that makes its clients at init pays for them as it would.
 */
export const initEnv = () => ({ ...process.env, AWS_REGION: process.env.AWS_REGION ?? 'eu-west-1', NODE_PATH: path.join(REPO_ROOT, 'node_modules') });
