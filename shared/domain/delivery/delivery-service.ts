import { randomUUID } from 'node:crypto';
import { buildRequests, destinationType, sendRequest, type DestinationRequest, type Message } from '../../destinations';
import type { CatalogRepository } from '../../persistence/catalog-repository';
import type { CodeRepository } from '../../persistence/code-repository';
import type { BatchRef, DeliveryRepository, DeliverySample, OutcomeCounts, OutcomeError, ParkedDelivery } from '../../persistence/delivery-repository';
import type { IngestRepository } from '../../persistence/ingest-repository';
import type { Destination } from '../catalog/schemas';
import type { CredentialService } from '../credentials/credential-service';
import { redact } from '../credentials/redact';
import { transformForDelivery } from './user-transform';

/**
 * Retries of failed deliveries, the reference's defaults: wait min(10 s × 2^(n-1), 5 min) after the n-th
 * failure; abort once at least 3 attempts failed and 3 hours passed since the first failure.
 */
export interface DeliveryPolicy {
  baseDelayMs: number;
  maxDelayMs: number;
  minAttempts: number;
  retryWindowMs: number;
  /** How long an attempt owns a batch or a retry before another may take it over. */
  leaseMs: number;
}

export function deliveryPolicyFromEnv(env: NodeJS.ProcessEnv = process.env): DeliveryPolicy {
  const number = (name: string, fallback: number) => {
    const value = Number(env[name]);
    return Number.isFinite(value) && value > 0 ? value : fallback;
  };
  const baseDelayMs = number('WEIR_DELIVERY_RETRY_BASE_MS', 10_000);
  return {
    baseDelayMs,
    maxDelayMs: baseDelayMs * 30,
    minAttempts: 3,
    retryWindowMs: number('WEIR_DELIVERY_RETRY_WINDOW_MS', 3 * 3600_000),
    leaseMs: 60_000,
  };
}

/** How many delivered events of a batch are kept as samples for the live-events view. */
const SAMPLES_PER_BATCH = 20;
const iso = (ms: number) => new Date(ms).toISOString();
const succeeded = (status: number) => status >= 200 && status < 300;

/**
 * Live delivery: for each enabled destination connected to the source, the published transformation (one
 * sandbox invocation per batch), the destination transform and the send, the same code the test interface
 * runs. Progress is recorded per event, so a redelivered record or a restart resends nothing; a failed send
 * is parked as its own item and retried when due, so it never holds up other events or destinations.
 */
export class DeliveryService {
  /**
   * Destinations that just failed to answer, per process: until `until`, their events are parked unsent,
   * so a dead destination costs one time-out per period, not one per event, record or retry.
   */
  private readonly circuit = new Map<string, { until: number; status: number; error: string }>();

  constructor(
    private readonly catalog: CatalogRepository,
    private readonly code: CodeRepository,
    private readonly ingest: IngestRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly credentials: CredentialService,
    private readonly policy: DeliveryPolicy = deliveryPolicyFromEnv(),
  ) {}

  /** One stored ingest part, to every destination that should receive it. */
  async deliverPart(part: { workspaceId: string; sourceId: string; requestId: string; part: number; events: Message[] }): Promise<void> {
    const destinations = await this.destinationsOf(part.workspaceId, part.sourceId);
    await Promise.all(destinations.map((destination) => this.deliverBatch({ ...part, destinationId: destination.id }, destination, part.events)));
  }

  private async destinationsOf(workspaceId: string, sourceId: string): Promise<Destination[]> {
    const [connections, destinations] = await Promise.all([this.catalog.listConnections(workspaceId), this.catalog.listDestinations(workspaceId)]);
    const connected = new Set(connections.filter((c) => c.sourceId === sourceId).map((c) => c.destinationId));
    return destinations.filter((d) => d.enabled && connected.has(d.id));
  }

  private async deliverBatch(ref: BatchRef, destination: Destination, events: Message[]): Promise<void> {
    const owner = randomUUID();
    const progress = await this.deliveries.claimBatch(ref, owner, iso(Date.now()), iso(Date.now() + this.policy.leaseMs));
    if (progress === undefined || progress >= events.length) {
      if (progress !== undefined) await this.deliveries.finishBatch(ref, owner, progress, [], iso(Date.now()));
      return;
    }
    const pending = events.slice(progress);
    const { outcomes, secrets } = await transformForDelivery(this.code, ref.workspaceId, destination, pending, () =>
      this.credentials.forInvocation(ref.workspaceId),
    );
    const counts: Required<OutcomeCounts> = { delivered: 0, filtered: 0, aborted: 0, retrying: 0 };
    const errors: OutcomeError[] = [];
    const samples: DeliverySample[] = [];
    const sample = (s: DeliverySample) => void (samples.length < SAMPLES_PER_BATCH && samples.push(s));
    const type = destinationType(destination.type);
    /** Within one batch the destination stays down once it failed, however long the circuit's period. */
    let downInBatch: { status: number; error: string } | undefined;

    for (let i = 0; i < pending.length; i++) {
      const event = pending[i]!;
      const messageId = String(event.messageId);
      const outcome = outcomes[i]!;
      if ('filtered' in outcome) {
        counts.filtered++;
        sample({ messageId, outcome: 'filtered' });
      } else if ('error' in outcome) {
        counts.aborted++;
        errors.push({ at: iso(Date.now()), messageId, error: outcome.error });
        sample({ messageId, outcome: 'aborted', error: outcome.error });
      } else {
        for (const [output, message] of outcome.outputs.entries()) {
          const built = !type
            ? { ok: false as const, error: `unknown destination type ${destination.type}` }
            : type.deliver
              ? { ok: true as const, requests: [] }
              : buildRequests(type, message, destination.config);
          if (!built.ok) {
            counts.aborted++;
            errors.push({ at: iso(Date.now()), messageId, error: built.error });
            sample({ messageId, outcome: 'aborted', error: built.error });
            continue;
          }
          const down = downInBatch ?? this.downState(destination.id);
          const sent = type?.deliver ? await this.deliverServer(destination, message, down) : await this.sendAll(built.requests, down);
          if (sent.delivered) {
            counts.delivered++;
            sample({ messageId, outcome: 'delivered', request: built.requests.at(-1), status: sent.status, response: sent.response });
          } else if (sent.retryable) {
            if (!sent.skipped) {
              this.markDown(destination.id, sent.status, sent.error);
              downInBatch = { status: sent.status, error: sent.error };
            }
            const parked = await this.deliveries.park({
              workspaceId: ref.workspaceId,
              sourceId: ref.sourceId,
              destinationId: destination.id,
              messageId,
              output,
              requests: built.requests.slice(sent.sentCount),
              ...(type?.deliver && { message }),
              attempts: 1,
              firstFailedAt: iso(Date.now()),
              lastError: sent.error,
              lastStatus: sent.status,
              status: 'waiting',
              dueAt: iso(Date.now() + this.delay(1)),
            });
            if (parked) counts.retrying++;
            errors.push({ at: iso(Date.now()), messageId, status: sent.status, error: sent.error });
            sample({ messageId, outcome: 'retrying', request: built.requests[sent.sentCount], status: sent.status, error: sent.error });
          } else {
            counts.aborted++;
            errors.push({ at: iso(Date.now()), messageId, status: sent.status, error: sent.error });
            sample({ messageId, outcome: 'aborted', request: built.requests[sent.sentCount], status: sent.status, response: sent.response, error: sent.error });
          }
        }
      }
      // Each handled event is recorded before the next is sent: a restart resumes after it.
      if (!(await this.deliveries.checkpoint(ref, owner, progress + i + 1, iso(Date.now() + this.policy.leaseMs)))) return;
    }
    // What is kept for people to read never shows a secret the transformation let out.
    await this.deliveries.finishBatch(ref, owner, events.length, redact(samples, secrets), iso(Date.now()));
    await this.deliveries.addOutcomes(ref.workspaceId, destination.id, counts, redact(errors, secrets), iso(Date.now()));
  }

  /** A server-delivered type's own delivery of one event, read like a send. Sends nothing to a destination that is down. */
  private async deliverServer(destination: Destination, message: Message, down?: { status: number; error: string }) {
    if (down) return this.sendAll([], down);
    const result = await destinationType(destination.type)!.deliver!(message, destination.config);
    const ok = succeeded(result.status);
    return { delivered: ok, retryable: !ok && result.retryable, skipped: false, sentCount: 0, status: result.status, error: result.error ?? '', response: result.response };
  }

  private downState(destinationId: string) {
    const down = this.circuit.get(destinationId);
    if (down && down.until > Date.now()) return down;
    this.circuit.delete(destinationId);
    return undefined;
  }

  private markDown(destinationId: string, status: number, error: string): void {
    this.circuit.set(destinationId, { until: Date.now() + this.policy.baseDelayMs, status, error });
  }

  /** Sends a message's requests in order; stops at the first that fails. Sends nothing to a destination that is down. */
  private async sendAll(requests: DestinationRequest[], down?: { status: number; error: string }) {
    if (down) {
      const error = `not sent: the destination failed moments ago (${down.error})`;
      return { delivered: false, retryable: true, skipped: true, sentCount: 0, status: down.status, error, response: undefined };
    }
    let last = { status: 0, response: undefined as unknown };
    for (let j = 0; j < requests.length; j++) {
      const result = await sendRequest(requests[j]!);
      if (!succeeded(result.status)) {
        const error = result.error ?? `destination answered ${result.status}: ${typeof result.response === 'string' ? result.response : JSON.stringify(result.response)}`.slice(0, 500);
        return { delivered: false, retryable: result.retryable, skipped: false, sentCount: j, status: result.status, error, response: result.response };
      }
      last = { status: result.status, response: result.response };
    }
    return { delivered: true, retryable: false, skipped: false, sentCount: requests.length, status: last.status, error: '', response: last.response };
  }

  private delay(failures: number): number {
    return Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  }

  /**
   * The scheduler's round: batches whose delivery was interrupted (lease run out) resume after their last
   * recorded event; parked deliveries that are due get their next attempt.
   */
  async runDue(limit = 100): Promise<number> {
    const items = await this.deliveries.needingAttention(iso(Date.now()), limit);
    // One queue per destination, all destinations at once: a slow one never holds up another.
    const byDestination = new Map<string, Record<string, unknown>[]>();
    for (const item of items) {
      const id = String(item.destinationId);
      byDestination.set(id, [...(byDestination.get(id) ?? []), item]);
    }
    const ran = await Promise.all(
      [...byDestination.values()].map(async (queue) => {
        // Within one round a destination that failed stays down for the rest of its queue.
        const round: { down?: { status: number; error: string } } = {};
        let count = 0;
        for (const item of queue) if (await this.attend(item, round)) count++;
        return count;
      }),
    );
    return ran.reduce((a, b) => a + b, 0);
  }

  private async attend(item: Record<string, unknown>, round: { down?: { status: number; error: string } }): Promise<boolean> {
    if (item.entity === 'deliveryRetry') return this.retry(item as unknown as ParkedDelivery, round);
    if (item.entity !== 'deliveryBatch') return false;
    const ref = item as unknown as BatchRef;
    const [events, destination] = await Promise.all([
      this.ingest.readPart(ref.workspaceId, ref.sourceId, ref.requestId, ref.part),
      this.catalog.getDestination(ref.workspaceId, ref.destinationId),
    ]);
    if (!events || !destination) return false;
    await this.deliverBatch(ref, destination, events);
    return true;
  }

  /** One more attempt of a parked delivery, if this caller wins it. */
  private async retry(parked: ParkedDelivery, round: { down?: { status: number; error: string } }): Promise<boolean> {
    const claimed = await this.deliveries.claimRetry(parked, iso(Date.now()), iso(Date.now() + this.policy.leaseMs));
    if (!claimed) return false;
    const destination = await this.catalog.getDestination(claimed.workspaceId, claimed.destinationId);
    const at = iso(Date.now());
    const finish = async (status: 'delivered' | 'aborted', requests: DestinationRequest[], lastError?: string, lastStatus?: number) => {
      await this.deliveries.recordRetry(claimed, { status, requests, lastError, lastStatus });
      const error = status === 'aborted' ? [{ at, messageId: claimed.messageId, status: lastStatus, error: lastError ?? '' }] : [];
      await this.deliveries.addOutcomes(claimed.workspaceId, claimed.destinationId, { retrying: -1, [status]: 1 }, error, at);
    };
    if (!destination || !destination.enabled) {
      await finish('aborted', claimed.requests, `the destination was ${destination ? 'disabled' : 'deleted'}`, claimed.lastStatus);
      return true;
    }
    const down = round.down ?? this.downState(claimed.destinationId);
    const sent = claimed.message ? await this.deliverServer(destination, claimed.message, down) : await this.sendAll(claimed.requests, down);
    if (sent.delivered) {
      this.circuit.delete(claimed.destinationId);
      await finish('delivered', []);
    } else if (sent.skipped) {
      // Not an attempt: the destination is down; wait for the next probe to tell.
      await this.deliveries.recordRetry(claimed, { status: 'waiting', requests: claimed.requests, dueAt: iso(Date.now() + this.delay(claimed.attempts)), countAttempt: false });
    } else {
      if (sent.retryable) {
        this.markDown(claimed.destinationId, sent.status, sent.error);
        round.down = { status: sent.status, error: sent.error };
      }
      const attempts = claimed.attempts + 1;
      const expired = attempts >= this.policy.minAttempts && Date.now() - Date.parse(claimed.firstFailedAt) > this.policy.retryWindowMs;
      const remaining = claimed.requests.slice(sent.sentCount);
      if (!sent.retryable || expired) await finish('aborted', remaining, sent.error, sent.status);
      else {
        await this.deliveries.recordRetry(claimed, { status: 'waiting', requests: remaining, lastError: sent.error, lastStatus: sent.status, dueAt: iso(Date.now() + this.delay(attempts)) });
      }
    }
    return true;
  }
}
