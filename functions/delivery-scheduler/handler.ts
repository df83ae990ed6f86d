import { deliveryOver } from '../../shared/domain/delivery/wiring';
import { getStore } from '../../shared/persistence/store';

const delivery = deliveryOver(getStore());

/** Runs on a schedule: parked deliveries that are due, and interrupted batches, get their next attempt. */
export const handler = async (): Promise<{ ran: number }> => ({ ran: await delivery.runDue() });
