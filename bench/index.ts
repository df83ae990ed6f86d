import { spawn } from 'node:child_process';
import path from 'node:path';

// `npm run bench`: each benchmark in a process of its own, one after the other (their output shown as it
// comes), then the summary block: one `name: value` line per figure the benchmarks printed under these names.

const BENCHES = ['run.ts', 'pipeline.ts', 'schemas.ts', 'plans.ts', 'cost.ts', 'console.ts', 'bundles.ts', 'rules.ts', 'user-regex.ts', 'warehouse.ts'];

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
function run(file: string): Promise<Map<string, string>> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, file)], { stdio: ['ignore', 'pipe', 'inherit'] });
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
  for (const file of BENCHES) for (const [name, value] of await run(file)) figures.set(name, value);
  console.log('\n--- summary ---');
  for (const name of SUMMARY) console.log(`${name}: ${figures.get(name) ?? 'not measured'}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
