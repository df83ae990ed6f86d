import { destinationType, sendRequest } from '../../destinations';
import type { DeletionIO, DeletionOutcome } from '../../destinations';
import type { CatalogRepository } from '../catalog/ports';
import type { DeletionJobRepository, RegulationRepository } from './ports';
import type { DeletionJob, Regulation } from './schemas';
import { componentLogger } from '../../ops/logger';
import { countMetrics } from '../../ops/metrics';
import type { CredentialService } from '../credentials/credential-service';
import { sendableDestination } from '../delivery/credential-values';

const log = componentLogger('regulations');

import type { FailureRepository } from '../delivery/jobs';
/** Retry schedule of failed deletions; WEIR_DELETION_RETRY_BASE_MS shortens it (tests, local runs). */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
  /** How long an attempt owns its job; past it, the attempt is presumed lost and the job runs again. */
  leaseMs: number;
}

export function retryPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): RetryPolicy {
  const base = Number(env.WEIR_DELETION_RETRY_BASE_MS);
  const baseDelayMs = Number.isFinite(base) && base > 0 ? base : 60_000;
  // 60 s, 2 min, 4 min, 8 min between the five attempts; the cap (an hour by default) bounds longer schedules.
  return { maxAttempts: 5, baseDelayMs, maxDelayMs: baseDelayMs * 60, leaseMs: 5 * 60_000 };
}

/** Attempt n failed: wait base × 2^(n-1), at most maxDelay. */
export const retryDelay = (policy: RetryPolicy, attempts: number) => Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, attempts - 1));

const iso = (ms: number) => new Date(ms).toISOString();

const cannotDeleteReason = (type: string) => `destination type ${type} cannot delete users`;

/**
 * Runs deletion jobs: one per (regulation, destination). Creating them is idempotent, each attempt is claimed
 * with a conditional write (so a replayed record or a second scheduler never calls the vendor twice), and
 * every outcome is recorded against the attempt that made it.
 */
export class DeletionRunner {
  constructor(
    private readonly regulations: Pick<RegulationRepository, 'getRegulation'>,
    private readonly jobs: Omit<DeletionJobRepository, 'list'>,
    private readonly catalog: Pick<CatalogRepository, 'listDestinations' | 'getDestination'>,
    private readonly policy: RetryPolicy = retryPolicyFromEnv(),
    /** How deletion requests reach the vendors. */
    private readonly vendors: DeletionIO = { send: (request) => sendRequest(request) },
    /** Failed deliveries kept for people to read and retry: a deleted user's go with the regulation. */
    private readonly failures?: Pick<FailureRepository, 'removeUser'>,
    /** The workspace's credentials, which a destination's configuration may name in place of a secret. */
    private readonly credentials?: Pick<CredentialService, 'forInvocation'>,
  ) {}

  /**
   * The jobs of a new suppress_with_delete regulation, created once, then attempted at once. A destination
   * whose type cannot delete users gets a job that is final from the start (`unsupported`, with the reason),
   * so the regulation shows it beside the jobs that run.
   */
  async start(regulation: Regulation): Promise<void> {
    const at = new Date().toISOString();
    const destinations = new Map((await this.catalog.listDestinations(regulation.workspaceId)).map((d) => [d.id, d]));
    const userId = regulation.attributes.userId;
    if (this.failures && userId !== undefined && !regulation.canceled) {
      for (const id of destinations.keys()) await this.failures.removeUser(regulation.workspaceId, id, userId);
    }
    const created: DeletionJob[] = [];
    for (const destinationId of regulation.destinationIds ?? []) {
      const typeName = destinations.get(destinationId)?.type;
      const cannotDelete = typeName !== undefined && !destinationType(typeName)?.deleteUsers;
      const base = {
        workspaceId: regulation.workspaceId,
        regulationId: regulation.id,
        destinationId,
        destinationType: typeName ?? 'unknown',
        attempts: 0,
        createdAt: at,
        updatedAt: at,
      };
      const job: DeletionJob = regulation.canceled
        ? { ...base, status: 'canceled', finishedAt: at }
        : cannotDelete
          ? { ...base, status: 'unsupported', reason: cannotDeleteReason(typeName), finishedAt: at }
          : { ...base, status: 'pending', dueAt: at };
      if (await this.jobs.createIfAbsent(job)) created.push(job);
    }
    await Promise.all(created.filter((job) => job.status === 'pending').map((job) => this.attempt(job)));
  }

  /** Attempts every job that is due (or whose attempt was lost); returns how many ran. */
  async runDue(limit = 100): Promise<number> {
    const due = await this.jobs.due(new Date().toISOString(), limit);
    const ran = await Promise.all(due.map((job) => this.attempt(job)));
    return ran.filter(Boolean).length;
  }

  /** One attempt, if this caller wins the claim. */
  async attempt(job: DeletionJob): Promise<boolean> {
    const started = Date.now();
    const claimed = await this.jobs.claim(job, iso(started), iso(started + this.policy.leaseMs));
    if (!claimed) return false;
    const outcome = await this.delete(claimed);
    const at = new Date().toISOString();
    const abort = outcome.status === 'failed' && (!outcome.retryable || claimed.attempts >= this.policy.maxAttempts);
    switch (outcome.status) {
      case 'completed':
        await this.jobs.record(claimed, { status: 'completed', at, ...(outcome.detail && { reason: outcome.detail }) });
        break;
      case 'not_found':
      case 'unsupported':
        await this.jobs.record(claimed, { status: outcome.status, at, reason: outcome.reason });
        break;
      case 'failed': {
        await this.jobs.record(claimed, {
          status: abort ? 'aborted' : 'failed',
          at,
          lastError: outcome.error,
          ...(!abort && { dueAt: iso(Date.now() + retryDelay(this.policy, claimed.attempts)) }),
        });
      }
    }
    countMetrics({ DeletionAttempts: 1 }, { outcome: abort ? 'aborted' : outcome.status });
    return true;
  }

  /** Calls the destination type's deleter for the regulation's user. Never throws. */
  private async delete(job: DeletionJob): Promise<DeletionOutcome> {
    try {
      const [regulation, destination] = await Promise.all([
        this.regulations.getRegulation(job.workspaceId, job.regulationId),
        this.catalog.getDestination(job.workspaceId, job.destinationId),
      ]);
      if (!regulation) return { status: 'failed', error: 'the regulation no longer exists', retryable: false };
      if (!destination) return { status: 'failed', error: 'the destination no longer exists', retryable: false };
      const type = destinationType(destination.type);
      if (!type?.deleteUsers) return { status: 'unsupported', reason: cannotDeleteReason(destination.type) };
      const user = { ...regulation.attributes, userId: regulation.attributes.userId! };
      const sendable = await sendableDestination(destination, () =>
        this.credentials ? this.credentials.forInvocation(job.workspaceId) : Promise.resolve({ values: {} }),
      );
      if (!sendable.ok) return { status: 'failed', error: sendable.error, retryable: false };
      return await type.deleteUsers([user], sendable.destination.config as never, this.vendors);
    } catch (error) {
      log.error('deletion attempt failed', { error });
      return { status: 'failed', error: error instanceof Error ? error.message : String(error), retryable: true };
    }
  }

  /** Cancels what still waits (the regulation was canceled). */
  cancel = (regulation: Regulation) => this.jobs.cancelWaiting(regulation.workspaceId, regulation.id, new Date().toISOString());
}
