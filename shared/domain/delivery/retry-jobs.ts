import type { Message } from '../../destinations';
import type { DestinationRequest } from '../../destinations/types';
import type { CatalogRepository } from '../catalog/ports';
import type { CredentialService } from '../credentials/credential-service';
import type { Destination } from '../catalog/schemas';
import type { SuppressionIndex } from '../regulations/suppression-index';
import type { Circuit } from './circuit';
import { parseFailureId } from './failures';
import { visible } from './failures-service';
import type { DeliveryJob, FailureRepository, StoredFailure } from './jobs';
import { send } from './sender';
import { restoreSecrets } from '../credentials/redact';
import { sendableDestination } from './credential-values';

/** How many failures a job takes in one slice (a scheduler round). */
const JOB_SLICE = 100;
/** How long a runner holds a job for its slice. */
const JOB_LEASE_MS = 120_000;

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Runs retry jobs a slice at a time: each failure of the slice is marked as sent by the job (a conditional
 * write: one sent before, by this job or another, is skipped), then sent once with the payload that failed,
 * and its end recorded with the job's progress. A crash after a mark leaves that failure unsent for good:
 * at most once more, never twice.
 */
export class RetryJobs {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getDestination'>,
    private readonly failures: FailureRepository,
    private readonly suppression: Pick<SuppressionIndex, 'suppressedUsers'>,
    private readonly circuit: Circuit,
    private readonly credentials: Pick<CredentialService, 'forInvocation'>,
  ) {}

  /** One slice of each running job whose lease is free: how many failures were sent. */
  async runDue(limit = 10): Promise<number> {
    const jobs = await this.failures.runningJobs(iso(Date.now()), limit);
    let sent = 0;
    for (const job of jobs) {
      const claimed = await this.failures.claimJob(job, iso(Date.now()), iso(Date.now() + JOB_LEASE_MS));
      if (claimed) sent += await this.slice(claimed);
    }
    return sent;
  }

  private async slice(job: DeliveryJob): Promise<number> {
    const destination = await this.catalog.getDestination(job.workspaceId, job.destinationId);
    const { failures, cursor, done } = await this.select(job);
    // A destination deleted or disabled ends the job: what it did not send stays as it is, retryable later.
    if (!destination || !destination.enabled) {
      await this.failures.advanceJob(job, { selected: 0, skipped: 0, done: true, at: iso(Date.now()) });
      return 0;
    }
    const shown = new Set(await visible(this.suppression, job.workspaceId, failures));
    let skipped = 0;
    let sent = 0;
    for (const stored of failures) {
      const eligible = shown.has(stored) && (!stored.retry || stored.retry.state === 'failed') && resendable(stored);
      if (!eligible || !(await this.failures.mark(job.workspaceId, job.destinationId, stored, job.id, iso(Date.now())))) {
        skipped++;
        continue;
      }
      await this.resend(job, destination, stored);
      sent++;
    }
    await this.failures.advanceJob(job, { ...(cursor !== undefined && { cursor }), selected: failures.length, skipped, done, at: iso(Date.now()) });
    return sent;
  }

  private async resend(job: DeliveryJob, destination: Destination, stored: StoredFailure): Promise<void> {
    const { failure } = stored;
    // A server-delivered chunk's event goes alone, with the workspace's credentials, as a parked retry does.
    const scope = {
      workspaceId: job.workspaceId,
      sourceId: failure.sourceId,
      destinationId: job.destinationId,
      credentials: async () => (await this.credentials.forInvocation(job.workspaceId)).values,
    };
    // Secrets the payload held are kept as marks of the record's nonce, naming their credentials: their values
    // now go back in those marks, and nowhere else (text the event brought stays as it came).
    const kept = { requests: failure.requests as DestinationRequest[], ...(failure.message && { message: failure.message as Message }) };
    const restored =
      failure.secretNonce !== undefined
        ? restoreSecrets(kept, failure.secretNonce, (await this.credentials.forInvocation(job.workspaceId)).values)
        : { ok: true as const, value: kept };
    if (!restored.ok) {
      const error = `not sent: the payload held a secret that cannot be put back (${restored.missing} is gone)`;
      return this.failures.record(job, stored, { state: 'failed', error, at: iso(Date.now()) });
    }
    // A server-delivered type is given the credentials its configuration names as they are now.
    const sendable = await sendableDestination(destination, () => this.credentials.forInvocation(job.workspaceId));
    if (!sendable.ok) return this.failures.record(job, stored, { state: 'failed', error: `not sent: ${sendable.error}`, at: iso(Date.now()) });
    const outcome = await send(sendable.destination, { ...restored.value, id: `${failure.messageId}#${failure.output}` }, this.circuit, scope);
    const at = iso(Date.now());
    if (outcome.kind === 'delivered') await this.failures.record(job, stored, { state: 'delivered', status: outcome.status, at });
    else await this.failures.record(job, stored, { state: 'failed', status: outcome.status, error: outcome.error, at });
  }

  /** The job's next slice: by its ids, or the next groups of its window (failures recorded after it began left out). */
  private async select(job: DeliveryJob): Promise<{ failures: StoredFailure[]; cursor?: string; done: boolean }> {
    const { selection } = job;
    if ('ids' in selection) {
      const start = Number(job.cursor ?? 0);
      const ids = selection.ids.slice(start, start + JOB_SLICE);
      const refs = ids.map(parseFailureId).filter((ref) => ref !== undefined);
      const found = await this.failures.byRefs(job.workspaceId, job.destinationId, refs);
      const missing = ids.length - found.length;
      // Ids that name nothing (gone with their retention) count as looked at and skipped.
      const gone: StoredFailure[] = Array.from({ length: missing }, () => GONE);
      const end = start + ids.length;
      return { failures: [...found, ...gone], cursor: String(end), done: end >= selection.ids.length };
    }
    const after = job.cursor ? parseFailureId(job.cursor) : undefined;
    const page = await this.failures.page(job.workspaceId, job.destinationId, { from: selection.from, to: selection.to }, after, JOB_SLICE);
    const failures = page.failures.filter(
      ({ failure }) => failure.abortedAt <= job.createdAt && (selection.reason === undefined || failure.reason === selection.reason),
    );
    const cursor = page.next && Buffer.from(`${page.next.group}|${page.next.index}`, 'utf8').toString('base64url');
    return { failures, ...(cursor && { cursor }), done: !page.next };
  }
}

/** A failure whose payload was cut when kept cannot be sent again. */
const resendable = ({ failure }: StoredFailure) =>
  (failure.requests.length > 0 || failure.message !== undefined) &&
  failure.requests.every((r) => typeof r === 'object' && r !== null && !('truncated' in r)) &&
  !(failure.message && 'truncated' in failure.message);

/** Stands for an id that names no failure any more. */
const GONE: StoredFailure = {
  group: '',
  index: -1,
  failure: { messageId: '', sourceId: '', output: 0, receivedAt: '', abortedAt: '', reason: 'http4xx', error: '', requests: [], attempts: [] },
};
