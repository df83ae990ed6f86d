import type { Message } from '../../destinations';
import type { CatalogRepository } from '../catalog/ports';
import type { Destination } from '../catalog/schemas';
import type { ParkedDeliveryRepository } from './ports';
import type { Circuit } from './circuit';
import { redact } from '../credentials/redact';
import type { CredentialService } from '../credentials/credential-service';
import { deliveryMetrics, retryDelay, type DeliveryPolicy } from './policy';
import type { ParkedDelivery } from './records';
import { send } from './sender';
import { verdictOf, type Verdict } from './verdict';
import { abortClassOf } from './funnel';
import { keptFailures, type FailureReason } from './failures';
import { retryFailure } from './retry-failure';
import { sendableDestination } from './credential-values';

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * Parked deliveries' attempts: one at a time per user, first in first out; each claimed under a lease, and
 * ended under it (delivered, aborted, or waiting again with a later due time).
 */
export class ParkedRetries {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getDestination'>,
    private readonly parked: ParkedDeliveryRepository,
    private readonly circuit: Circuit,
    private readonly policy: DeliveryPolicy,
    private readonly credentials: Pick<CredentialService, 'forInvocation'>,
    /** The stored event a parked delivery came from (what its failure keeps), if it is still there. */
    private readonly originalOf: (parked: ParkedDelivery) => Promise<Record<string, unknown> | undefined> = async () => undefined,
  ) {}

  /**
   * One more attempt of a parked delivery, if this caller wins it. When it ends (delivered or aborted), the
   * user's next parked delivery there, now due, comes back as `next`: the caller may attempt it at once.
   */
  async attempt(parked: ParkedDelivery): Promise<{ attempted: boolean; next?: ParkedDelivery }> {
    // A user's parked deliveries go in order: one that is not its user's first waits behind it.
    const first = await this.parked.firstOfUser(parked);
    if (first && (first.seq !== parked.seq || first.messageId !== parked.messageId)) {
      await this.parked.reschedule(parked, iso(Date.now() + this.policy.maxDelayMs));
      return { attempted: false };
    }
    const claimed = await this.parked.claimRetry(parked, iso(Date.now()), iso(Date.now() + this.policy.leaseMs));
    if (!claimed) return { attempted: false };
    const destination = await this.catalog.getDestination(claimed.workspaceId, claimed.destinationId);
    const at = iso(Date.now());
    if (!destination || !destination.enabled) {
      const reason = `the destination was ${destination ? 'disabled' : 'deleted'}`;
      const next = await this.final(claimed, destination?.type, at, {
        status: 'aborted',
        requests: claimed.requests,
        lastError: reason,
        lastStatus: claimed.lastStatus,
        reason: 'config',
      });
      return { attempted: true, ...(next && { next }) };
    }
    const credentials = () => this.credentials.forInvocation(claimed.workspaceId);
    // A server-delivered type is given the credentials its configuration names (the requests of an HTTP type
    // were built with them when parked).
    const sendable = await sendableDestination(destination, credentials);
    if (!sendable.ok) {
      const failed = { requests: claimed.requests, lastError: sendable.error, lastStatus: claimed.lastStatus, reason: 'config' as const };
      const next = await this.final(claimed, destination.type, at, { status: 'aborted', ...failed });
      return { attempted: true, ...(next && { next }) };
    }
    const scope = {
      workspaceId: claimed.workspaceId,
      sourceId: claimed.sourceId,
      destinationId: claimed.destinationId,
      credentials: async () => (await credentials()).values,
    };
    const prepared = { requests: claimed.requests, message: claimed.message as Message | undefined, id: `${claimed.messageId}#${claimed.output}` };
    const sent = verdictOf(await send(sendable.destination, prepared, this.circuit, scope));
    const next = await this.settle(claimed, destination, at, sent, sendable.named);
    return { attempted: true, ...(next && { next }) };
  }

  /** Where a sent attempt leaves the parked delivery: delivered, aborted, or waiting again; the user's next when it ended. */
  private async settle(
    claimed: ParkedDelivery,
    destination: Destination,
    at: string,
    sent: Verdict,
    named: Record<string, string>,
  ): Promise<ParkedDelivery | undefined> {
    if (sent.kind === 'delivered') return this.final(claimed, destination.type, at, { status: 'delivered', requests: [] });
    const failed = { requests: sent.remaining, lastError: sent.error, lastStatus: sent.status };
    if (sent.kind === 'refused')
      return this.final(claimed, destination.type, at, { status: 'aborted', ...failed, reason: abortClassOf(sent.error, sent.status) }, named);
    if (sent.skipped) {
      // Not an attempt: the destination is known to be failing; wait for a probe to tell.
      const dueAt = iso(Date.now() + retryDelay(this.policy, Math.max(1, claimed.attempts)));
      await this.parked.recordRetry(claimed, { status: 'waiting', requests: claimed.requests, dueAt, countAttempt: false }, at);
      return undefined;
    }
    const attempts = claimed.attempts + 1;
    const expired = attempts >= this.policy.minAttempts && Date.now() - Date.parse(claimed.firstFailedAt) > this.policy.retryWindowMs;
    if (expired) return this.final(claimed, destination.type, at, { status: 'aborted', ...failed, reason: 'expired' }, named);
    const wait = Math.max(retryDelay(this.policy, attempts), sent.retryAfterMs ?? 0);
    await this.parked.recordRetry(claimed, { status: 'waiting', ...failed, dueAt: iso(Date.now() + wait) }, at);
    deliveryMetrics(destination.type, { retried: 1 });
    return undefined;
  }

  /**
   * A final outcome (delivered, aborted): recorded, counted, and the user's next parked delivery, if any, is due
   * now (and returned).
   */
  private async final(
    claimed: ParkedDelivery,
    destinationType: string | undefined,
    at: string,
    outcome: { status: 'delivered' | 'aborted'; requests: ParkedDelivery['requests']; lastError?: string; lastStatus?: number; reason?: FailureReason },
    /** The credentials the destination's configuration names, by name: secrets too, whatever their own flag. */
    configNamed: Record<string, string> = {},
  ): Promise<ParkedDelivery | undefined> {
    const { status, lastStatus } = outcome;
    // What people will read (the destination's errors, the failed event's record) never shows a secret the
    // transformation put in the payload, nor one a destination echoed back.
    const invocation = status === 'aborted' ? await this.credentials.forInvocation(claimed.workspaceId) : undefined;
    const credentials = invocation && { named: { ...invocation.named, ...configNamed }, secrets: [...invocation.secrets, ...Object.values(configNamed)] };
    const secrets = credentials?.secrets ?? [];
    const lastError = redact(outcome.lastError, secrets);
    const error = status === 'aborted' ? { error: { at, messageId: claimed.messageId, status: lastStatus, error: lastError ?? '' } } : {};
    const kept = status === 'aborted' ? retryFailure(claimed, await this.originalOf(claimed).catch(() => undefined), outcome, at) : undefined;
    const failure = kept ? { failure: keptFailures([kept], { named: credentials?.named, secrets })[0]! } : {};
    if (!(await this.parked.recordRetry(claimed, { ...outcome, lastError, ...error, ...failure }, at))) return undefined;
    deliveryMetrics(destinationType ?? 'unknown', { [status]: 1 });
    const next = await this.parked.firstOfUser(claimed);
    if (next?.status !== 'waiting') return undefined;
    const dueAt = iso(Date.now());
    await this.parked.reschedule(next, dueAt);
    return { ...next, dueAt };
  }
}
