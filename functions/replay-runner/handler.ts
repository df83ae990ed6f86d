import { replayRunner } from '../../shared/composition/replay-runner';
import { services } from '../../shared/services';

const runner = replayRunner(services());

/**
 * How long one run sends before it hands over to the next (`WEIR_REPLAY_RUN_MS`): 45 s in AWS, where the
 * schedule is a minute and the function's time-out more; the local runtime sets a few seconds.
 */
const budgetMs = () => Number(process.env.WEIR_REPLAY_RUN_MS) || 45_000;

/** Runs on a schedule: running replays send their next stored parts. */
export const handler = async (): Promise<{ parts: number }> => ({ parts: await runner.runActive(budgetMs()) });
