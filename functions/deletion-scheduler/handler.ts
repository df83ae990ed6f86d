import { deletionRunner } from '../../shared/composition/deletions';
import { services } from '../../shared/services';

const runner = deletionRunner(services());

/** Runs on a schedule: every deletion job whose retry is due, or whose attempt was lost, gets its attempt. */
export const handler = async (): Promise<{ ran: number }> => ({ ran: await runner.runDue() });
