import { spawn } from 'node:child_process';
import path from 'node:path';

// `npm run bench`: each benchmark in a process of its own, one after the other (their output shown as it
// comes), then the summary block: one `name: value` line per figure the benchmarks printed under these names.

/** A benchmark's file; with `env`, run again so, and only its `lines` taken for the summary. */
type Bench = string | { file: string; env: Record<string, string>; lines: string[] };

const BENCHES: Bench[] = [
  'run.ts',
  'pipeline.ts',
  'schemas.ts',
  'plans.ts',
  'cost.ts',
  // The cost of a new source (one ingest shard), and of the traffic browsers send (one event a request).
  { file: 'cost.ts', env: { BENCH_INGEST_SHARDS: '1', BENCH_COST_EVENTS: '10000' }, lines: ['usd per million events at one shard'] },
  {
    file: 'cost.ts',
    env: { BENCH_INGEST_SHARDS: '1', BENCH_COST_PER_REQUEST: '1', BENCH_COST_EVENTS: '10000' },
    lines: ['usd per million events at one event a request'],
  },
  'console.ts',
  'bundles.ts',
  'rules.ts',
  'user-regex.ts',
  'warehouse.ts',
];

const SUMMARY = [
  'ingestion/raw-store ratio',
  'ingestion store round trips/request',
  'ingestion cpu us/event',
  'ingest->destination p50 ms',
  'delivery writes/event batch vendor',
  'delivery writes/event webhook',
  'capture events/s/core batch 2000',
  'capture wcu/event batch 100',
  'capture wcu/event batch 2000',
  'plan and rules events/s/core',
  'ingest->destination p50 with plan / without',
  'sandbox cold p50 / node:vm fresh',
  'sandbox batch 1000 / node:vm warm',
  'usd per million events',
  'usd per million events at one shard',
  'usd per million events at one event a request',
  'dedup usd per million events',
  'hottest partition wcu/s at 50k ev/s',
  'hottest partition rcu/s at 50k ev/s',
  'ingest bundle kb',
  'largest function bundle kb',
  'ingest init / authorizer init',
  'rules events/s/core',
  'worst user regex ms/event',
  'worst user regex / benign pattern',
  'warehouse load / psql copy',
];

/** Runs one benchmark, echoing its output; resolves with the `name: value` lines it printed. */
function run(file: string, env: Record<string, string> = {}): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, file)], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...env },
    });
    const found = new Map<string, string>();
    let rest = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      const lines = (rest + chunk.toString('utf8')).split('\n');
      rest = lines.pop() ?? '';
      // Names may hold a colon themselves (node:vm): each is looked for as the start of a line.
      for (const line of lines) for (const name of SUMMARY) if (line.startsWith(`${name}: `)) found.set(name, line.slice(name.length + 2).trim());
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(found) : reject(new Error(`bench/${file} exited with ${code}`))));
  });
}

async function main(): Promise<void> {
  const figures = new Map<string, string>();
  for (const bench of BENCHES) {
    const found = typeof bench === 'string' ? await run(bench) : await run(bench.file, bench.env);
    for (const [name, value] of found) if (typeof bench === 'string' || bench.lines.includes(name)) figures.set(name, value);
  }
  console.log('\n--- summary ---');
  for (const name of SUMMARY) console.log(`${name}: ${figures.get(name) ?? 'not measured'}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
