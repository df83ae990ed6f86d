/**
 * The progress lines of a long scenario (`log` of bench/support's runners), kept rather than printed: a passing
 * run shows none, and a scenario that fails prints them before its error.
 */
export function progressLog(tag: string) {
  const lines: string[] = [];
  return {
    log: (line: string) => void lines.push(line),
    /** Runs the scenario; if it throws, its lines go to stderr first. */
    async run<T>(scenario: Promise<T>): Promise<T> {
      try {
        return await scenario;
      } catch (error) {
        process.stderr.write(lines.map((line) => `[${tag}] ${line}\n`).join(''));
        throw error;
      }
    },
  };
}
