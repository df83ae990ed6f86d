import type * as Re2js from 're2js';

/**
 * The one place that compiles a regular expression a user wrote (a connection rule's `matches`, a tracking
 * plan's `pattern`, `patternProperties` and `propertyNames`) and matches it: with RE2 (re2js, a pure-JS port),
 * whose matching time is linear in the text, never with V8's backtracking engine, which a pattern such as
 * `^(a+)+$` stalls for seconds.
 *
 * Patterns are written in JavaScript's syntax (the `u` flag's, as JSON Schema and Ajv read them). What RE2
 * cannot run (backreferences, lookahead, lookbehind) is refused, as is a pattern whose program is too large
 * to keep a match cheap. Small differences remain: RE2's `\s` is ASCII whitespace only, and its `.` matches
 * `\r`, U+2028 and U+2029.
 *
 * Linear is not free: RE2's NFA costs up to a pattern's program size per character (10 to 30 ns per
 * instruction and character measured through the plan validator, the most for `\p{L}` classes), and re2js's
 * DFA, which its `test()` tries first, costs far more per character when a pattern and a random text keep
 * making new states (`[ab]*a[ab]{20}$`: 15 to 30 ms for 4,096 characters, against 1 ms by the NFA). So a
 * pattern is matched by the NFA (`matcher().find()`: one-pass, bit-state or Pike VM), on a bounded text, within
 * a bounded amount of work per event (MatchMeter).
 */

/**
 * Largest program (RE2 instructions) a user pattern may compile to. 400 takes a UUID's pattern (40), a simple
 * e-mail's (13) and RFC 5322's e-mail address pattern (259).
 */
export const MAX_PROGRAM_SIZE = 400;

/**
 * No pattern is matched against more than this many characters of a text (fewer for a large program: its
 * maxChars). A tracking plan's value longer than that is a violation; a rule matches its first maxChars.
 */
export const MAX_MATCHED_CHARS = 4096;

/**
 * The work all of one event's patterns may do together, in instruction-characters: each match takes its
 * pattern's program size times the characters it reads (what the NFA costs at worst) plus MATCH_OVERHEAD_CHARS
 * (a match's own cost, and the error it may make, in characters' worth). Per event, not per value: a plan with
 * many patterned values, an array of them, or a connection with many `matches` conditions shares it. At the
 * dearest instruction measured (`\p{L}`, about 20 ns) it is under 3 ms; what the worst known pattern and event
 * cost through the plan validator and the rules engine is `npm run bench`'s `worst user regex ms/event`
 * (bench/user-regex.ts, target 5). It also lets three rules read 4,096 characters each with patterns of ten
 * instructions or so.
 */
export const MAX_EVENT_MATCH_WORK = 131_072;
const MATCH_OVERHEAD_CHARS = 32;

/**
 * One event's matching: the work its patterns have taken (of MAX_EVENT_MATCH_WORK), and the first text they did
 * not check, with why (`problem`, which names the pattern). Kept by what compiles patterns for events (a plan
 * version, a connection's rules), started for each event; matching is synchronous, so events never mix.
 */
export class MatchMeter {
  used = 0;
  unchecked?: { text: string; problem: string };

  /** A new event: all of its work ahead, nothing unchecked. */
  start(): void {
    this.used = 0;
    this.unchecked = undefined;
  }
}

/** A pattern compiled to RE2. `toString` is its source and flags (Ajv keys its compiled patterns by it). */
export interface UserRegex {
  /** The most characters of a text it is matched against: MAX_MATCHED_CHARS, or the event's work over its program size. */
  readonly maxChars: number;
  /**
   * Whether `text` matches. A text longer than maxChars, or past the work left to the event, is not matched: it
   * answers true (no mismatch) and is noted on the meter, from which the caller reports it.
   */
  test(text: string): boolean;
  toString(): string;
}

/** A pattern that cannot be compiled for RE2: `problem` says why, starting with the pattern itself. */
export class UserRegexRefused extends Error {
  constructor(
    readonly pattern: string,
    readonly problem: string,
  ) {
    super(problem);
    this.name = 'UserRegexRefused';
  }
}

// re2js is an on-demand module (infra/bundles.ts): required on first use, so a bundle does not carry it.
let engine: typeof Re2js | undefined;
// eslint-disable-next-line @typescript-eslint/no-require-imports
const re2js = (): typeof Re2js => (engine ??= require('re2js') as typeof Re2js);

/** The pattern as a JavaScript literal shows it: what a refusal names. */
const quoted = (pattern: string) => `/${pattern}/`;

/** What a pattern uses that only a backtracking engine runs: a backreference or a lookaround (outside a class). */
function backtrackingOnly(pattern: string): string | undefined {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === '\\') {
      const next = pattern[i + 1] ?? '';
      if (!inClass && /[1-9]/.test(next)) return `a backreference, \\${/^\d+/.exec(pattern.slice(i + 1))![0]},`;
      if (!inClass && next === 'k') return 'a backreference, \\k<name>,';
      i++;
    } else if (inClass) inClass = ch !== ']';
    else if (ch === '[') inClass = true;
    else if (ch === '(') {
      const look = /^\(\?(<?)[=!]/.exec(pattern.slice(i, i + 4));
      if (look) return `a look${look[1] ? 'behind' : 'ahead'}, ${look[0]}…),`;
    }
  }
  return undefined;
}

/**
 * Compiles a user's pattern for RE2, or throws UserRegexRefused naming the pattern and what is wrong with it.
 * Its matches take their work from `meter` (one event's); without one, each match is an event of its own.
 */
export function compileUserRegex(pattern: string, options: { ignoreCase?: boolean; meter?: MatchMeter } = {}): UserRegex {
  const refuse = (problem: string): never => {
    throw new UserRegexRefused(pattern, `${quoted(pattern)} ${problem}`);
  };
  try {
    // Only parsed (never run) by V8: the syntax the pattern is written in, with the same errors as before.
    new RegExp(pattern, 'u');
  } catch (error) {
    refuse(`is not a valid regular expression (${(error as Error).message})`);
  }
  const unsupported = backtrackingOnly(pattern);
  if (unsupported) refuse(`uses ${unsupported} which only a backtracking engine runs; Weir matches patterns with RE2 (linear time), which has none`);
  const { RE2JS, RE2JSException } = re2js();
  let compiled: Re2js.RE2JS;
  try {
    compiled = RE2JS.compile(RE2JS.translateRegExp(pattern), options.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
  } catch (error) {
    if (!(error instanceof RE2JSException)) throw error;
    return refuse(`is not supported by RE2 (${error.message})`);
  }
  const size = compiled.programSize();
  if (size > MAX_PROGRAM_SIZE) refuse(`is too complex: it compiles to ${size} instructions, at most ${MAX_PROGRAM_SIZE}`);
  const source = `/${pattern}/${options.ignoreCase ? 'i' : ''}`;
  const maxChars = Math.min(MAX_MATCHED_CHARS, Math.floor(MAX_EVENT_MATCH_WORK / size) - MATCH_OVERHEAD_CHARS);
  const tooLong = `is longer than the ${maxChars.toLocaleString('en')} characters ${source} is checked on`;
  const spent = `is not checked against ${source}: the event's patterns did all the matching an event may`;
  return {
    maxChars,
    test(text) {
      const meter = options.meter ?? new MatchMeter();
      const work = size * (text.length + MATCH_OVERHEAD_CHARS);
      const problem = text.length > maxChars ? tooLong : meter.used + work > MAX_EVENT_MATCH_WORK ? spent : '';
      if (!problem) return (meter.used += work) > 0 && compiled.matcher(text).find();
      meter.unchecked ??= { text, problem };
      return true;
    },
    toString: () => source,
  };
}

/** Why a user's pattern is refused (its text quoted first), or undefined when it compiles. */
export function userRegexProblem(pattern: string, options: { ignoreCase?: boolean } = {}): string | undefined {
  try {
    compileUserRegex(pattern, options);
    return undefined;
  } catch (error) {
    if (error instanceof UserRegexRefused) return error.problem;
    throw error;
  }
}
