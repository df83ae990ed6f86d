import type { BatchChange } from '../../shared/domain/delivery/ports';

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
