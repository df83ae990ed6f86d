import { scheduledDelivery } from '../../shared/composition/delivery';
import { services } from '../../shared/services';

const deliveryScheduler = scheduledDelivery(services());

/** Runs on a schedule: parked deliveries that are due, and interrupted batches, get their next attempt. */
export const handler = async (): Promise<{ ran: number }> => ({ ran: await deliveryScheduler.runDue() });
