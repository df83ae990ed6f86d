import { alertEvaluator } from '../../shared/composition/alerts';
import { services } from '../../shared/services';

const evaluator = alertEvaluator(services());

/** Runs on a schedule: every alert rule is read against the counters; changes of state are notified. */
export const handler = async (): Promise<{ notified: number }> => ({ notified: await evaluator.evaluateAll() });
