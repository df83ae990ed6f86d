import type { Message } from '../shared/destinations';
import { applyRules, compileRules, parseRules } from '../shared/domain/rules/rules';
import type { EventSpec } from '../shared/domain/tracking-plans/schemas';
import { CompiledPlan, loadAjv } from '../shared/domain/tracking-plans/validator';

// User regular expressions on the shared paths: the worst patterns known (test/hostile/regex-cost.test.ts,
// test/unit/user-regex.test.ts, and below) over hostile values, through the tracking-plan validator (ingestion)
// and the rules engine (delivery, dry runs), each pattern over every hostile value, in this process. Per
// pattern and value the mean of `RUNS` events, the best of `TRIALS` tries (a busy machine only adds time),
// after a first event timed on its own (shown). The baseline is a benign pattern that reads the whole of the
// same values on the same paths. Prints `worst user regex ms/event: N` (target <= 5) and
// `worst user regex / benign pattern: R`.

const RUNS = 20;
const TRIALS = 3;
/** The longest string an event holds: an event is at most 32 KB (MAX_EVENT_BYTES). */
const LENGTH = 30_000;

const randomAb = () => Array.from({ length: LENGTH - 1 }, () => (Math.random() < 0.5 ? 'a' : 'b')).join('') + '!';

/** Hostile values, each event's own: a fresh random one every event defeats what RE2's DFA cached before. */
const HOSTILE_VALUES: Record<string, () => string> = {
  digits: () => '1'.repeat(LENGTH),
  'a…!': () => `${'a'.repeat(LENGTH - 1)}!`,
  'a a …!': () => `${'a '.repeat(LENGTH / 2 - 1)} !`,
  'random ab…!': randomAb,
};

/**
 * Catastrophic for a backtracking engine (the suite's), then two that are costly for RE2: the largest program
 * it takes that busts its DFA cache, and a small one whose DFA has a million states (a random value makes
 * new ones every event, so RE2 rebuilds its cache, then falls back to its NFA).
 */
const PLAN_PATTERNS = ['^\\d*\\d*\\d*x', '^(a+)+$', '(a|aa)+$', '((\\w+)\\s?)+$', '(?:[ab]?){132}[ab]{132}[^ab]', '[ab]*a[ab]{20}$'];
const RULE_PATTERNS = ['((a+))+$', '^(?:(?:a+))+$', '((\\w+)\\s?)+$', '(?:[ab]?){66}[ab]{66}[^ab]', '[ab]*a[ab]{20}$'];
/** Benign, and reads the whole value: `^[\w\s!]+$` (a DFA's best case). */
const BENIGN = '^[\\w\\s!]+$';

interface Path {
  name: string;
  /** Compiles `pattern` as the path does, and answers a function that runs it over one event holding `value`. */
  prepare(pattern: string): (value: string) => void;
}

function planPath(Ajv: Awaited<ReturnType<typeof loadAjv>>): Path {
  return {
    name: 'plan',
    prepare(pattern) {
      const spec: EventSpec = { type: 'track', name: 'E', schema: { type: 'object', properties: { value: { type: 'string', pattern } } } };
      const plan = new CompiledPlan(Ajv, `bench-${pattern}`, 1, [spec]);
      return (value) => void plan.check({ type: 'track', event: 'E', properties: { value } });
    },
  };
}

const rulesPath: Path = {
  name: 'rules',
  prepare(pattern) {
    const rules = compileRules(parseRules([{ type: 'drop-if', conditions: [{ path: 'properties.value', op: 'matches', pattern }] }]));
    return (value) => void applyRules(rules, { type: 'track', event: 'E', properties: { value } } as Message);
  },
};

/** Mean ms of `run` over `values`, one event each. */
function msPerEvent(run: (value: string) => void, values: string[]): number {
  const start = process.hrtime.bigint();
  for (const value of values) run(value);
  return Number(process.hrtime.bigint() - start) / 1e6 / values.length;
}

/** Mean ms per event of `pattern` on `path`: the worst over the hostile values, which one, and the worst first event. */
function measure(path: Path, pattern: string): { ms: number; value: string; firstMs: number } {
  const run = path.prepare(pattern);
  let worst = { ms: 0, value: '', firstMs: 0 };
  for (const [name, valueOf] of Object.entries(HOSTILE_VALUES)) {
    worst.firstMs = Math.max(worst.firstMs, msPerEvent(run, [valueOf()]));
    let best = Infinity;
    for (let trial = 0; trial < TRIALS; trial++) best = Math.min(best, msPerEvent(run, Array.from({ length: RUNS }, valueOf)));
    if (best > worst.ms) worst = { ...worst, ms: best, value: name };
  }
  return worst;
}

async function main(): Promise<void> {
  const paths: [Path, string[]][] = [
    [planPath(await loadAjv()), PLAN_PATTERNS],
    [rulesPath, RULE_PATTERNS],
  ];
  // The benign pattern first, on both paths: it warms the engine and the JIT, and is the baseline.
  let benign = 0;
  for (const [path] of paths) measure(path, BENIGN);
  for (const [path] of paths) benign = Math.max(benign, measure(path, BENIGN).ms);

  console.log(
    `\nUser regular expressions (${LENGTH.toLocaleString('en')}-character hostile values, mean of ${RUNS} events, best of ${TRIALS}; rules cut values to 4,096)`,
  );
  let worst = { ms: 0, what: '' };
  for (const [path, patterns] of paths) {
    for (const pattern of patterns) {
      const { ms, value, firstMs } = measure(path, pattern);
      console.log(`  ${path.name.padEnd(5)} ${pattern.padEnd(30)} ${ms.toFixed(3)} ms/event (worst value: ${value}; first event ${firstMs.toFixed(2)} ms)`);
      if (ms > worst.ms) worst = { ms, what: `${path.name} ${pattern}` };
    }
  }
  console.log(`  benign ${BENIGN} (reads every character): ${benign.toFixed(3)} ms/event; worst: ${worst.what}`);
  console.log(`worst user regex ms/event: ${worst.ms.toFixed(2)}`);
  console.log(`worst user regex / benign pattern: ${(worst.ms / benign).toFixed(1)}`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
