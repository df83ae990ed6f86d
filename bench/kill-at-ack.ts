import { parseArgs } from 'node:util';
import { runKillAtAck } from './support/kill-at-ack';

/** How many kills: `npm run bench:kills -- --kills 500`, or WEIR_KILLS; 300 by default. */
function killsOf(): number {
  const { values } = parseArgs({ options: { kills: { type: 'string' } } });
  const raw = values.kills ?? process.env.WEIR_KILLS ?? '300';
  const kills = Number(raw);
  if (!Number.isInteger(kills) || kills < 1) throw new Error(`--kills must be a whole number of at least 1, got ${raw}`);
  return kills;
}

/**
 * `npm run bench:kills [-- --kills N]`: SIGKILL of the local runtime's process group at the instant its first 200
 * reaches the client, N times over single-user and multi-user batches, /v1/track, Segment's paths and the beacon,
 * each followed by a restart on the same directory and ports; then what was acknowledged and never stored or
 * delivered. Exits 1 when anything was lost or left running.
 */
async function main() {
  const started = Date.now();
  const kills = killsOf();
  const report = await runKillAtAck({ kills, settleTimeoutMs: 300_000, log: (line) => console.log(`  ${line}`) });
  const lines: [string, unknown][] = [
    ['kills', `${report.kills}, acknowledged requests: ${report.acknowledgedRequests}, events: ${report.acknowledgedEvents}, lost: ${report.lost.length}`],
    [
      'acknowledged requests by kind (acknowledged / sent)',
      Object.entries(report.byKind)
        .map(([k, v]) => `${k} ${v.acknowledged}/${v.sent}`)
        .join(', '),
    ],
    [
      'lost: not stored / not at webhook a / not at webhook b',
      `${report.notStored.length} / ${report.notDelivered.a.length} / ${report.notDelivered.b.length}`,
    ],
    ['requests with a lost event', report.lostRequests],
    ['audit: stored events / in no state', `${report.audit.events} / ${report.audit.missing}`],
    ['seconds per kill (start, source, burst, kill)', report.secondsPerKill.toFixed(2)],
    ['seconds per start', report.secondsPerStart.toFixed(2)],
    ['left running after the final stop', report.leftRunning.length],
    ['run time (s)', Math.round((Date.now() - started) / 1000)],
  ];
  for (const [name, value] of lines) console.log(`${name}: ${value}`);
  if (report.lost.length > 0 || report.audit.missing > 0 || report.leftRunning.length > 0) process.exit(1);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
