import { retryJobs, scheduledDelivery } from '../../shared/composition/delivery';
import { services } from '../../shared/services';

const deliveryScheduler = scheduledDelivery(services());
const jobs = retryJobs(services());

/** Runs on a schedule: parked deliveries that are due, and interrupted batches, get their next attempt; retry jobs a slice each. */
export const handler = async (): Promise<{ ran: number; retried: number }> => {
  const ran = await deliveryScheduler.runDue();
  return { ran, retried: await jobs.runDue() };
};
