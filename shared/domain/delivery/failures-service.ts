import type { CatalogRepository } from '../catalog/ports';
import { NotFoundError, ValidationError } from '../errors';
import { newId } from '../ids';
import { normaliseUserId, type SuppressionIndex } from '../regulations/suppression-index';
import { failureId, parseFailureId, shownFailure, type FailuresQuery, type RetryRequest } from './failures';
import { windowHours } from './funnel';
import { jobView, type DeliveryJob, type FailureRepository, type JobSelection, type StoredFailure } from './jobs';

/**
 * The window of a listing or a retry: the whole hours of ingestion the funnel counts for the same `from` and
 * `to`, so that what the funnel counts aborted is what is listed. As sort-key bounds (UTC, milliseconds, as the
 * groups' keys begin): a group received at `to` exactly (`to#…` sorts after `to`) is the next hour's.
 */
function failureWindow(from: string, to: string): { from: string; to: string } {
  const hours = windowHours({ from, to });
  return { from: hours.from, to: hours.to };
}

/**
 * What a user reads of a destination's failed events, and the retries they start: listed by the window of their
 * ingestion and their reason, never a suppressed user's; a retry is a job (jobs.ts) the scheduler runs.
 */
export class FailuresService {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getDestination'>,
    private readonly failures: FailureRepository,
    private readonly suppression: Pick<SuppressionIndex, 'suppressedUsers'>,
  ) {}

  async list(workspaceId: string, destinationId: string, query: FailuresQuery) {
    await this.destination(workspaceId, destinationId);
    const after = query.after_cursor === undefined ? undefined : parseFailureId(query.after_cursor);
    if (query.after_cursor !== undefined && !after) throw new ValidationError('query.after_cursor: not a cursor of this listing');
    const window = failureWindow(query.from, query.to);
    const page = await this.failures.page(workspaceId, destinationId, window, after, query.limit, query.order);
    const selected = page.failures.filter((f) => query.reason === undefined || f.failure.reason === query.reason);
    const shown = await visible(this.suppression, workspaceId, selected);
    const failures = shown.map(({ group, index, failure, retry }) => ({ id: failureId(group, index), ...shownFailure(failure), ...(retry && { retry }) }));
    // What the page holds but does not show is counted, so that listed + withheld adds up to what the funnel counts.
    const withheld = { suppressed: selected.length - shown.length, deleted: page.removed };
    return { failures, window, withheld, paging: page.next ? { next: failureId(page.next.group, page.next.index) } : {} };
  }

  /** Starts a retry job over the failures named or selected: 202 with the job, which the scheduler then runs. */
  async retry(workspaceId: string, destinationId: string, request: RetryRequest) {
    await this.destination(workspaceId, destinationId);
    let selection: JobSelection;
    if (request.ids !== undefined) {
      request.ids.forEach((id, i) => {
        if (!parseFailureId(id)) throw new ValidationError(`body.ids.${i}: not a failure id`);
      });
      selection = { ids: [...new Set(request.ids)] };
    } else {
      const { from, to } = request as Required<Pick<RetryRequest, 'from' | 'to'>>;
      if (Date.parse(from) > Date.parse(to)) throw new ValidationError('body.from: must not be after to');
      selection = { ...failureWindow(from, to), ...(request.reason && { reason: request.reason }) };
    }
    const at = new Date().toISOString();
    const job: DeliveryJob = {
      id: newId(),
      kind: 'retry',
      workspaceId,
      destinationId,
      selection,
      status: 'running',
      createdAt: at,
      updatedAt: at,
      progress: { selected: 0, sent: 0, delivered: 0, failed: 0, skipped: 0 },
    };
    await this.failures.createJob(job);
    return { job: jobView(job) };
  }

  async job(workspaceId: string, destinationId: string, jobId: string) {
    await this.destination(workspaceId, destinationId);
    const job = await this.failures.getJob(workspaceId, destinationId, jobId);
    if (!job) throw NotFoundError.of('job', jobId);
    return { job: jobView(job) };
  }

  private async destination(workspaceId: string, destinationId: string): Promise<void> {
    if (!(await this.catalog.getDestination(workspaceId, destinationId))) throw NotFoundError.of('destination', destinationId);
  }
}

/** The failures whose users no regulation in force suppresses (one read round per source of the page). */
export async function visible(
  suppression: Pick<SuppressionIndex, 'suppressedUsers'>,
  workspaceId: string,
  failures: StoredFailure[],
): Promise<StoredFailure[]> {
  const bySource = new Map<string, Set<string>>();
  for (const { failure } of failures) {
    const user = normaliseUserId(failure.userId);
    if (user !== undefined) bySource.set(failure.sourceId, (bySource.get(failure.sourceId) ?? new Set()).add(user));
  }
  const suppressed = new Map<string, Set<string>>();
  await Promise.all([...bySource].map(async ([sourceId, users]) => suppressed.set(sourceId, await suppression.suppressedUsers(workspaceId, sourceId, users))));
  return failures.filter(({ failure }) => {
    const user = normaliseUserId(failure.userId);
    return user === undefined || !suppressed.get(failure.sourceId)?.has(user);
  });
}
