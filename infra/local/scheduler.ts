import path from 'node:path';
import { SCHEDULED_FUNCTIONS } from '../../shared/contract/functions';
import { componentLogger } from '../../shared/ops/logger';

const log = componentLogger('scheduler');

/**
 * The local stand-in for EventBridge schedules: each scheduled function runs every `intervalMs` (shorter than
 * in AWS, so retries are prompt on one machine), never twice at once; `stop` waits for a run in progress. An
 * interval of 0 starts no timer: the scheduled functions run only when `runNow` is called (tests drive them).
 */
export interface LocalScheduler {
  /** Runs every scheduled function once now (tests use it instead of waiting). */
  runNow(): Promise<void>;
  stop(): Promise<void>;
}

const ROOT = path.resolve(__dirname, '../..');
type Scheduled = () => Promise<unknown>;

export function startLocalScheduler(intervalMs: number): LocalScheduler {
  const handlers = Object.entries(SCHEDULED_FUNCTIONS).map(([name, fn]) => ({
    name,
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    run: () => (require(path.join(ROOT, fn.entry)) as { handler: Scheduled }).handler(),
  }));
  let running: Promise<void> | undefined;
  let stopped = false;
  const runAll = async () => {
    for (const { name, run } of handlers) {
      await run().catch((error: unknown) => log.error('scheduled function failed', { function: name, error }));
    }
  };
  const tick = () => {
    if (stopped) return Promise.resolve();
    running ??= runAll().finally(() => (running = undefined));
    return running;
  };
  const timer = intervalMs > 0 ? setInterval(() => void tick(), intervalMs) : undefined;
  timer?.unref();
  return {
    runNow: async () => {
      await running;
      await tick();
    },
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
