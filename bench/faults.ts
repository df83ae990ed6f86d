import { parseArgs } from 'node:util';
import { runFaultScenario } from './support/fault-scenario';

/** The seed of the faults: `npm run bench:faults -- --seed 7`, or WEIR_FAULTS_SEED; 42 by default. */
function seedOf(): number {
  const { values } = parseArgs({ options: { seed: { type: 'string' } } });
  const raw = values.seed ?? process.env.WEIR_FAULTS_SEED ?? '42';
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < 0) throw new Error(`--seed must be a whole number, got ${raw}`);
  return seed;
}

/**
 * `npm run bench:faults [-- --seed N]`: the fault scenario of test/e2e/faults.test.ts at full size (2,000 events
 * in batches of 50 from 4 senders, 30 % of requests answered 503 and 10 % slow by 2–5 s, two SIGKILLs and a
 * SIGTERM of the process group), printing what was lost, sent twice, counted, what the delivery audit found,
 * and the healthy destinations' p95 during a hang.
 */
async function main() {
  const started = Date.now();
  const seed = seedOf();
  console.log(`  faults seeded with ${seed}`);
  const report = await runFaultScenario({
    seed,
    events: 2000,
    batchSize: 50,
    senders: 4,
    // About a batch a second: the SIGKILLs land 10 and 20 s in, in the middle of batches with slow sends.
    batchEveryMs: 1000,
    failureRate: 0.3,
    slowRate: 0.1,
    slowMs: [2000, 5000],
    latencySamples: 100,
    settleTimeoutMs: 600_000,
    log: (line) => console.log(`  ${line}`),
  });
  const lines = [
    ['acknowledged events', report.acknowledged],
    ['lost at destination a / b', `${report.lost.a} / ${report.lost.b}`],
    ['sent twice after a recorded 2xx', report.sentTwiceAfterRecorded],
    ['sent twice across a SIGKILL (answer not recorded)', report.sentTwiceAcrossKill],
    ...Object.entries(report.counters).map(([name, c]) => [
      `counters ${name}: delivered / received 2xx / retrying / aborted`,
      `${c.delivered} / ${c.received} / ${c.retrying} / ${c.aborted}${c.negative ? ' (negative!)' : ''}`,
    ]),
    ['audit: stored events', report.audit.events],
    ...Object.entries(report.audit.destinations).map(([name, a]) => [
      `audit ${name}: in no state / not settled / counters exact`,
      `${a.missing} / ${a.unsettled} / ${a.countersExact}`,
    ]),
    ['healthy p95 same workspace, before / during a hang (ms)', report.p95.sameWorkspace.join(' / ')],
    ['healthy p95 other workspace, before / during a hang (ms)', report.p95.otherWorkspace.join(' / ')],
    ['left running after the final stop', report.leftRunning.length],
    ['run time (s)', Math.round((Date.now() - started) / 1000)],
  ];
  for (const [name, value] of lines) console.log(`${name}: ${value}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
