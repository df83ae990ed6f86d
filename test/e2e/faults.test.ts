import { runFaultScenario, type ScenarioReport } from '../../bench/support/fault-scenario';
import { progressLog } from '../support/progress-log';

/**
 * Nothing acknowledged is lost: `npm start` on a persisted directory, flapping and slow destinations, SIGKILL of
 * the process group twice and SIGTERM to it once mid-delivery, each with a restart on the same directory; then a
 * destination that hangs beside healthy ones. (The same scenario at 2,000 events: `npm run bench:faults`.)
 */
jest.setTimeout(600_000);

let report: ScenarioReport;
const progress = progressLog('faults');
beforeAll(async () => {
  report = await progress.run(
    runFaultScenario({
      events: 300,
      batchSize: 25,
      senders: 3,
      failureRate: 0.3,
      slowRate: 0.1,
      slowMs: [200, 800],
      latencySamples: 100,
      settleTimeoutMs: 180_000,
      log: progress.log,
    }),
  );
});

test('every acknowledged event reaches both destinations', () => {
  expect(report.acknowledged).toBeGreaterThan(0);
  expect(report.lost).toEqual({ a: 0, b: 0 });
});

test('no event whose 2xx answer was recorded is sent again', () => {
  expect(report.sentTwiceAfterRecorded).toBe(0);
});

test('outcome counters equal what each destination answered 2xx, with nothing left retrying and nothing negative', () => {
  for (const name of ['a', 'b']) {
    const c = report.counters[name]!;
    expect({ delivered: c.delivered, retrying: c.retrying, negative: c.negative }).toEqual({
      delivered: c.received,
      retrying: 0,
      negative: false,
    });
  }
});

test('the audit finds every stored event in a state at both destinations, and their counters equal to those states', () => {
  expect(report.audit.events).toBeGreaterThanOrEqual(report.acknowledged);
  for (const name of ['a', 'b']) expect({ name, ...report.audit.destinations[name] }).toEqual({ name, missing: 0, unsettled: 0, countersExact: true });
});

test('the funnel adds up: every stored event routed once and in exactly one class, delivered equal to what the vendor answered 2xx', () => {
  for (const name of ['a', 'b']) {
    const f = report.funnel[name]!;
    expect({ name, ...f }).toEqual({
      name,
      routed: report.audit.events,
      classes: report.audit.events,
      delivered: report.counters[name]!.received,
      aborted: 0,
      retrying: 0,
    });
    expect(f.routed).toBeGreaterThanOrEqual(report.acknowledged);
  }
});

test("a hanging destination leaves healthy destinations' p95 delivery latency within twice its normal, in its workspace and another", () => {
  // 2x the normal p95, with a floor of one poll interval (200 ms) for a normal p95 that is itself tiny.
  for (const [before, during] of [report.p95.sameWorkspace, report.p95.otherWorkspace]) {
    expect(during).toBeLessThanOrEqual(Math.max(2 * before, before + 200));
  }
});

test('the graceful stop at the end leaves nothing running', () => {
  expect(report.leftRunning).toEqual([]);
});
