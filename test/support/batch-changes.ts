import type { BatchChange } from '../../shared/domain/delivery/ports';
import type { BatchRef } from '../../shared/domain/delivery/records';
import type { DeliveryRepository } from '../../shared/persistence/delivery-repository';

/**
 * A batch's write of `delivered` delivered events (its trail, totals and funnel alike), leased for a minute
 * unless `leaseUntil` says otherwise; with `finish`, the write that finishes it, one sample per event count.
 */
export const batchChange = (delivered: number, options: { finish?: boolean; leaseUntil?: string } = {}): BatchChange => ({
  position: { progress: delivered, output: 0 },
  totals: { delivered, filtered: 0, aborted: 0 },
  trail: `${delivered}d`,
  leaseUntil: options.leaseUntil ?? new Date(Date.now() + 60_000).toISOString(),
  parks: [],
  funnel: { counts: { delivered }, latency: {}, errors: {} },
  ...(options.finish && {
    finish: { samples: [{ messageId: `m-${delivered}`, outcome: 'delivered' as const, status: 200 }], errors: [], at: new Date().toISOString() },
  }),
});

/**
 * What a run of `owner` that died mid-batch left: its write of the first `delivered` events of the batch `ref`,
 * as read before it, with no funnel and leased until `leaseUntil`. The store's answer to the write.
 */
export async function recordedBeforeDying(deliveries: DeliveryRepository, ref: BatchRef, owner: string, delivered: number, leaseUntil: string) {
  const guard = { ref, owner, prior: await deliveries.readBatch(ref), established: false };
  const totals = { delivered, filtered: 0, aborted: 0 };
  return deliveries.writeBatch(guard, { position: { progress: delivered, output: 0 }, totals, trail: `${delivered}d`, leaseUntil, parks: [] });
}
