import type { Message } from '../shared/destinations';
import { applyRules, compileRules, parseRules } from '../shared/domain/rules/rules';
import type { EventSpec } from '../shared/domain/tracking-plans/schemas';
import { CompiledPlan, loadAjv } from '../shared/domain/tracking-plans/validator';
import { compileUserRegex, MAX_EVENT_MATCH_WORK } from '../shared/domain/user-regex';

// User regular expressions on the shared paths: the worst patterns known (test/hostile/regex-cost.test.ts,
// test/unit/user-regex.test.ts, and below) over hostile events, through the tracking-plan validator (ingestion)
// and the rules engine (delivery, dry runs), in this process. A pattern is matched on at most its `maxChars`
// characters of a text, and one event's patterns together do at most MAX_EVENT_MATCH_WORK (user-regex.ts): the
// worst event is one that spends all of it, so each hostile event holds `FIELDS` values each as long as the
// pattern reads (then a longer one, which is refused unread), or, for plans, an array of thousands of short
// ones. Every event gets fresh random values (what RE2 cached before does not help). Per pattern and shape the
// mean of `RUNS` events, the best of `TRIALS` tries (a busy machine only adds time). The baseline is a benign
// pattern over the same events on the same paths. Prints `worst user regex ms/event: N` (target <= 5) and
// `worst user regex / benign pattern: R`.

const RUNS = 10;
const TRIALS = 5;
/** Pattern'd values of one hostile event (more than enough to spend its work: one value at `maxChars` does for most). */
const FIELDS = 16;
/** The longest string an event holds: an event is at most 32 KB (MAX_EVENT_BYTES). */
const LONGEST = 30_000;
/** Short strings an array of a 32 KB event holds (`"a",` is 4 bytes). */
const ITEMS = 8000;

const randomOf = (alphabet: string) => {
  const chars = [...alphabet];
  return (n: number) => Array.from({ length: n }, () => chars[Math.floor(Math.random() * chars.length)]).join('');
};

/** Hostile texts of a length: what the patterns below fail on, slowly for a backtracking engine or for RE2. */
const TEXTS: Record<string, (n: number) => string> = {
  digits: (n) => '1'.repeat(n),
  'a…!': (n) => `${'a'.repeat(n - 1)}!`,
  'a a …!': (n) => `${'a '.repeat(Math.ceil(n / 2)).slice(0, n - 1)}!`,
  'random ab': randomOf('ab'),
  'random letters': randomOf('aéжλ中bΩ'),
};

/**
 * Catastrophic for a backtracking engine (the suite's), then costly for RE2: patterns that bust its DFA's cache
 * on random text (`[ab]*a[ab]{n}$`), and the largest programs it takes whose NFA keeps every instruction alive,
 * over small classes and over `\p{L}` (a large class, the dearest instruction measured).
 */
const COSTLY = ['[ab]*a[ab]{20}$', '[ab]*a[ab]{60}$', '(?:[ab]?){132}[ab]{132}[^ab]', '(?:\\p{L}?){132}\\p{L}{132}\\P{L}'];
const PLAN_PATTERNS = ['^\\d*\\d*\\d*x', '^(a+)+$', '(a|aa)+$', '((\\w+)\\s?)+$', ...COSTLY];
const RULE_PATTERNS = ['((a+))+$', '^(?:(?:a+))+$', '((\\w+)\\s?)+$', ...COSTLY];
/** Benign, and reads the whole value: `^[\w\s!]+$` (a DFA's best case). */
const BENIGN = '^[\\w\\s!]+$';

/** One hostile event's values: `FIELDS` fresh ones at the pattern's bound and a longer one, or an array of short ones. */
type Shape = 'fields' | 'items';
const valuesOf = (shape: Shape, text: (n: number) => string, maxChars: number): Record<string, unknown> =>
  shape === 'items'
    ? { items: Array.from({ length: ITEMS }, () => text(1)) }
    : Object.fromEntries([...Array.from({ length: FIELDS }, (_, i) => [`f${i}`, text(maxChars)]), ['long', text(LONGEST)]]);

interface Path {
  name: string;
  shapes: Shape[];
  /** Compiles `pattern` as the path does, and answers a function that runs it over one event of `properties`. */
  prepare(pattern: string): (properties: Record<string, unknown>) => void;
}

function planPath(Ajv: Awaited<ReturnType<typeof loadAjv>>): Path {
  return {
    name: 'plan',
    shapes: ['fields', 'items'],
    prepare(pattern) {
      const value = { type: 'string', pattern };
      const properties = {
        ...Object.fromEntries(Array.from({ length: FIELDS }, (_, i) => [`f${i}`, value])),
        long: value,
        items: { type: 'array', items: value },
      };
      const spec: EventSpec = { type: 'track', name: 'E', schema: { type: 'object', properties } };
      const plan = new CompiledPlan(Ajv, `bench-${pattern}`, 1, [spec]);
      return (values) => void plan.check({ type: 'track', event: 'E', properties: values });
    },
  };
}

const rulesPath: Path = {
  name: 'rules',
  shapes: ['fields'],
  prepare(pattern) {
    // `any`: no condition holds, so every one is tried.
    const conditions = [...Array.from({ length: FIELDS }, (_, i) => `f${i}`), 'long'].map((key) => ({ path: `properties.${key}`, op: 'matches', pattern }));
    const rules = compileRules(parseRules([{ type: 'drop-if', match: 'any', conditions }]));
    return (properties) => void applyRules(rules, { type: 'track', event: 'E', properties } as Message);
  },
};

/** Mean ms of `run` over `events`. */
function msPerEvent(run: (properties: Record<string, unknown>) => void, events: Record<string, unknown>[]): number {
  const start = process.hrtime.bigint();
  for (const event of events) run(event);
  return Number(process.hrtime.bigint() - start) / 1e6 / events.length;
}

/** Mean ms per event of `pattern` on `path`: the worst over the shapes and texts, and which. */
function measure(path: Path, pattern: string): { ms: number; what: string } {
  const run = path.prepare(pattern);
  const { maxChars } = compileUserRegex(pattern);
  let worst = { ms: 0, what: '' };
  for (const shape of path.shapes) {
    for (const [name, text] of Object.entries(TEXTS)) {
      const eventOf = () => valuesOf(shape, text, maxChars);
      run(eventOf());
      let best = Infinity;
      for (let trial = 0; trial < TRIALS; trial++) best = Math.min(best, msPerEvent(run, Array.from({ length: RUNS }, eventOf)));
      if (best > worst.ms) worst = { ms: best, what: `${shape}, ${name}` };
    }
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
    `\nUser regular expressions (${MAX_EVENT_MATCH_WORK.toLocaleString('en')} instruction-characters an event; ${FIELDS} values at a pattern's bound and one of ${LONGEST.toLocaleString('en')}, or ${ITEMS.toLocaleString('en')} short ones; mean of ${RUNS} events, best of ${TRIALS})`,
  );
  let worst = { ms: 0, what: '' };
  for (const [path, patterns] of paths) {
    for (const pattern of patterns) {
      const { ms, what } = measure(path, pattern);
      const { maxChars } = compileUserRegex(pattern);
      console.log(`  ${path.name.padEnd(5)} ${pattern.padEnd(34)} reads ${String(maxChars).padStart(4)}: ${ms.toFixed(3)} ms/event (worst: ${what})`);
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
