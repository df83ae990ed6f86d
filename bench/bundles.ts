import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundleAll, bundleDestinationCode, bundleOnDemand, heaviest, initMs, KB } from '../infra/bundle-build';
import { BASELINE_FUNCTION, ON_DEMAND_MODULES } from '../infra/bundles';

// Cold starts: every function bundled as CDK bundles it (infra/bundles.ts), its size, and its module-init
// time (`require` in a fresh process, the median of ROUNDS), with the admin authorizer's measured in the same
// rounds as the baseline. The sandbox worker, on-demand packages and destination types' code are separate files,
// loaded later.

const ROUNDS = Number(process.env.WEIR_BENCH_INIT_ROUNDS ?? 7);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'weir-bundles-'));
  try {
    const bundles = await bundleAll(dir);
    const init = initMs(
      bundles.map((b) => b.file),
      ROUNDS,
    );
    const baseline = bundles.find((b) => b.name === BASELINE_FUNCTION);
    const baselineMs = baseline ? (init.get(baseline.file) ?? NaN) : NaN;

    console.log(`\nfunction bundles (KB of index.js, budget, init ms as the median of ${ROUNDS}, init / ${BASELINE_FUNCTION} authorizer)`);
    for (const b of bundles) {
      const ms = init.get(b.file) ?? NaN;
      const cells = [b.name.padEnd(24), `${(b.bytes / KB).toFixed(0)} KB`.padStart(7), `/ ${b.budgetKb}`.padEnd(6), `${ms.toFixed(1)} ms`.padStart(9)];
      console.log(`  ${cells.join(' ')}  x${(ms / baselineMs).toFixed(1)}  ${heaviest(b.metafile, 3).join(', ')}`);
    }
    for (const name of ON_DEMAND_MODULES) {
      const users = bundles.filter((b) => b.onDemand?.includes(name)).map((b) => b.name);
      const { bytes } = await bundleOnDemand(name, dir);
      console.log(`  on demand: ${name} ${(bytes / KB).toFixed(0)} KB, beside ${users.join(', ')}`);
    }
    const codes = await bundleDestinationCode(dir);
    const kb = codes.map((c) => c.bytes / KB);
    const carriers = bundles.filter((b) => b.destinationCode).map((b) => b.name);
    console.log(
      `  on demand: destination types' code, ${codes.length} files of ${Math.min(...kb).toFixed(0)} to ${Math.max(...kb).toFixed(0)} KB, beside ${carriers.join(', ')}`,
    );

    const ingest = bundles.find((b) => b.name === 'ingest');
    const largest = [...bundles].sort((a, b) => b.bytes - a.bytes)[0];
    console.log(`ingest bundle kb: ${ingest ? (ingest.bytes / KB).toFixed(0) : 'not measured'}`);
    console.log(`largest function bundle kb: ${largest ? `${(largest.bytes / KB).toFixed(0)} (${largest.name})` : 'not measured'}`);
    console.log(`ingest init / authorizer init: ${ingest ? ((init.get(ingest.file) ?? NaN) / baselineMs).toFixed(2) : 'not measured'}`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
