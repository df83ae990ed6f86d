import { formatProblem, type Problem } from './spec/problems';

/** Where weir writes: its lines, gathered so tests and callers can read them too. */
export interface Output {
  line(text?: string): void;
  error(text: string): void;
}

export const consoleOutput: Output = {
  line: (text = '') => process.stdout.write(`${text}\n`),
  error: (text) => process.stderr.write(`${text}\n`),
};

export function printProblems(out: Output, problems: Problem[]): void {
  for (const problem of problems) out.error(formatProblem(problem));
  out.error(`${problems.length} problem${problems.length === 1 ? '' : 's'} in the spec; nothing was sent to the workspace`);
}

/** A value as a plan shows it: JSON on one line, cut when long. */
export function shown(value: unknown): string {
  const text = value === undefined ? '(none)' : JSON.stringify(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
