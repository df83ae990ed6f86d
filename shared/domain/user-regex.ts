import type * as Re2js from 're2js';

/**
 * The one place that compiles a regular expression a user wrote (a connection rule's `matches`, a tracking
 * plan's `pattern` and `patternProperties`): with RE2 (re2js, a pure-JS port), whose matching time is linear
 * in the text, never with V8's backtracking engine, which a pattern such as `^(a+)+$` stalls for seconds.
 *
 * Patterns are written in JavaScript's syntax (the `u` flag's, as JSON Schema and Ajv read them). What RE2
 * cannot run (backreferences, lookahead, lookbehind) is refused, as is a pattern whose program is too large
 * to keep a match cheap. Small differences remain: RE2's `\s` is ASCII whitespace only, and its `.` matches
 * `\r`, U+2028 and U+2029.
 */

/**
 * Largest program (RE2 instructions) a user pattern may compile to: RE2's NFA costs the text's length times
 * this. 400 takes a UUID's pattern (40), a simple e-mail's (13) and RFC 5322's e-mail address pattern (259);
 * what the worst still cost per event is `npm run bench`'s `worst user regex ms/event` (bench/user-regex.ts).
 */
export const MAX_PROGRAM_SIZE = 400;

/** A pattern compiled to RE2. `toString` is its source and flags (Ajv keys its compiled patterns by it). */
export interface UserRegex {
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
    else if (ch === '(' && pattern[i + 1] === '?') {
      const kind =
        pattern.startsWith('(?=', i) || pattern.startsWith('(?!', i) ? 'a lookahead' : /^\(\?<[=!]/.test(pattern.slice(i, i + 4)) ? 'a lookbehind' : '';
      if (kind) return `${kind}, ${pattern.slice(i, i + 3 + (kind === 'a lookbehind' ? 1 : 0))}…),`;
    }
  }
  return undefined;
}

/** Compiles a user's pattern for RE2, or throws UserRegexRefused naming the pattern and what is wrong with it. */
export function compileUserRegex(pattern: string, options: { ignoreCase?: boolean } = {}): UserRegex {
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
  return { test: (text) => compiled.test(text), toString: () => source };
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
