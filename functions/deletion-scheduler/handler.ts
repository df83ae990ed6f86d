import { regulationsOver } from '../../shared/domain/regulations/wiring';
import { getStore } from '../../shared/persistence/store';

const { runner } = regulationsOver(getStore());

/** Runs on a schedule: every deletion job whose retry is due, or whose attempt was lost, gets its attempt. */
export const handler = async (): Promise<{ ran: number }> => ({ ran: await runner.runDue() });
