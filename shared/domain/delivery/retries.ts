import type { Message } from '../../destinations';
import type { CatalogRepository } from '../catalog/ports';
import type { ParkedDeliveryRepository } from './ports';
import type { Circuit } from './circuit';
import { deliveryMetrics, retryDelay, type DeliveryPolicy } from './policy';
import type { ParkedDelivery } from './records';
import { send } from './sender';
import { verdictOf } from './verdict';

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
  ) {}

  /** One more attempt of a parked delivery, if this caller wins it. */
  async attempt(parked: ParkedDelivery): Promise<boolean> {
    // A user's parked deliveries go in order: one that is not its user's first waits behind it.
    const first = await this.parked.firstOfUser(parked);
    if (first && (first.seq !== parked.seq || first.messageId !== parked.messageId)) {
      await this.parked.reschedule(parked, iso(Date.now() + this.policy.maxDelayMs));
      return false;
    }
    const claimed = await this.parked.claimRetry(parked, iso(Date.now()), iso(Date.now() + this.policy.leaseMs));
    if (!claimed) return false;
    const destination = await this.catalog.getDestination(claimed.workspaceId, claimed.destinationId);
    const at = iso(Date.now());
    const final = async (status: 'delivered' | 'aborted', requests: ParkedDelivery['requests'], lastError?: string, lastStatus?: number) => {
      const error = status === 'aborted' ? { error: { at, messageId: claimed.messageId, status: lastStatus, error: lastError ?? '' } } : {};
      if (await this.parked.recordRetry(claimed, { status, requests, lastError, lastStatus, ...error }, at)) {
        deliveryMetrics(destination?.type ?? 'unknown', { [status]: 1 });
        // The user's next parked delivery, if any, is due now.
        const next = await this.parked.firstOfUser(claimed);
        if (next?.status === 'waiting') await this.parked.reschedule(next, iso(Date.now()));
      }
    };
    if (!destination || !destination.enabled) {
      await final('aborted', claimed.requests, `the destination was ${destination ? 'disabled' : 'deleted'}`, claimed.lastStatus);
      return true;
    }
    const sent = verdictOf(await send(destination, { requests: claimed.requests, message: claimed.message as Message | undefined }, this.circuit));
    if (sent.kind === 'delivered') await final('delivered', []);
    else if (sent.kind === 'refused') await final('aborted', sent.remaining, sent.error, sent.status);
    else if (sent.skipped) {
      // Not an attempt: the destination is known to be failing; wait for a probe to tell.
      await this.parked.recordRetry(
        claimed,
        {
          status: 'waiting',
          requests: claimed.requests,
          dueAt: iso(Date.now() + retryDelay(this.policy, Math.max(1, claimed.attempts))),
          countAttempt: false,
        },
        at,
      );
    } else {
      const attempts = claimed.attempts + 1;
      const expired = attempts >= this.policy.minAttempts && Date.now() - Date.parse(claimed.firstFailedAt) > this.policy.retryWindowMs;
      if (expired) await final('aborted', sent.remaining, sent.error, sent.status);
      else {
        await this.parked.recordRetry(
          claimed,
          {
            status: 'waiting',
            requests: sent.remaining,
            lastError: sent.error,
            lastStatus: sent.status,
            dueAt: iso(Date.now() + retryDelay(this.policy, attempts)),
          },
          at,
        );
        deliveryMetrics(destination.type, { retried: 1 });
      }
    }
    return true;
  }
}
