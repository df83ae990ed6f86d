import { services } from '../../shared/services';

const { delivery } = services();

/** Runs on a schedule: parked deliveries that are due, and interrupted batches, get their next attempt. */
export const handler = async (): Promise<{ ran: number }> => ({ ran: await delivery.runDue() });
