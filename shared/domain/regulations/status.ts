import type { DeletionJob, Regulation } from './schemas';
import { FINAL_JOB_STATUSES } from './schemas';

export type RegulationStatus = 'active' | 'pending' | 'running' | 'completed' | 'partially_completed' | 'failed' | 'canceled';

/**
 * One word for where a regulation stands. suppress: active until canceled. suppress_with_delete: pending
 * until every destination's job exists and none has started, running while any job waits or runs,
 * then completed (every job deleted the user or found none to delete), failed (none did) or
 * partially_completed; canceled once canceled, whatever its jobs did before.
 */
export function regulationStatus(regulation: Regulation, jobs: DeletionJob[]): RegulationStatus {
  if (regulation.canceled) return 'canceled';
  if (regulation.regulationType === 'suppress') return 'active';
  const expected = regulation.destinationIds?.length ?? 0;
  const open = jobs.filter((job) => !FINAL_JOB_STATUSES.has(job.status));
  if (jobs.length < expected || open.length > 0) {
    return jobs.every((job) => job.status === 'pending' && job.attempts === 0) ? 'pending' : 'running';
  }
  const deleted = jobs.filter((job) => job.status === 'completed' || job.status === 'not_found').length;
  if (deleted === jobs.length) return 'completed';
  return deleted === 0 ? 'failed' : 'partially_completed';
}
