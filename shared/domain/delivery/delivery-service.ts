import { randomUUID } from 'node:crypto';
import type { Message } from '../../destinations';
import type { CatalogRepository } from '../../persistence/catalog-repository';
import type { UserCodeRepository } from '../../persistence/user-code-repository';
import type {
  BatchClaim,
  BatchCounts,
  BatchPosition,
  BatchRef,
  DeliveryRepository,
  DeliverySample,
  NeedingAttention,
  OutcomeError,
  ParkedDelivery,
} from '../../persistence/delivery-repository';
import type { IngestRepository } from '../../persistence/ingest-repository';
import type { Destination } from '../catalog/schemas';
import type { CredentialService } from '../credentials/credential-service';
import { countMetrics } from '../../ops/metrics';
import { redact } from '../credentials/redact';
import { Circuit } from './circuit';
import { DeliveryLanes } from './lanes';
import { prepare, send, type SendOutcome } from './sender';
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
  /** How long the stream consumer (or the scheduler) waits for a destination's work before moving on. */
  laneWaitMs: number;
  /** How long a destination's circuit stays open before one probe may go. */
  circuitOpenMs: number;
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
    leaseMs: number('WEIR_DELIVERY_LEASE_MS', 60_000),
    laneWaitMs: number('WEIR_DELIVERY_LANE_WAIT_MS', 250),
    circuitOpenMs: number('WEIR_DELIVERY_CIRCUIT_OPEN_MS', baseDelayMs),
  };
}

/**
 * Per process, shared by every delivery service in it (in the local runtime, the stream consumer's and the
 * scheduler's): one lane and one circuit per destination.
 */
export const deliveryLanes = new DeliveryLanes(() => deliveryPolicyFromEnv().laneWaitMs);
const circuit = new Circuit(() => deliveryPolicyFromEnv().circuitOpenMs);

/** Delivery outcomes per destination type, as CloudWatch metrics (DeliveryDelivered, DeliveryRetried, …). */
function deliveryMetrics(destinationType: string, counts: Partial<Record<'delivered' | 'filtered' | 'aborted' | 'retried', number>>): void {
  const named = Object.fromEntries(Object.entries(counts).map(([k, n]) => [`Delivery${k.charAt(0).toUpperCase()}${k.slice(1)}`, n ?? 0]));
  countMetrics(named, { destinationType });
}

/** How many delivered events of a batch are kept as samples for the live-events view. */
const SAMPLES_PER_BATCH = 20;
const iso = (ms: number) => new Date(ms).toISOString();

/** What one run of a batch gathers for its finish: totals, and what people will read. */
interface BatchRun {
  ref: BatchRef;
  owner: string;
  destinationType: string;
  counts: BatchCounts;
  /** What this run did (the metrics it reports): the counts it added, and the outputs it parked. */
  added: BatchCounts & { retried: number };
  errors: OutcomeError[];
  samples: DeliverySample[];
}

/**
 * Live delivery: for each enabled destination connected to the source, the published transformation (one
 * sandbox invocation per batch), the destination transform and the send, the same code the test interface
 * runs. Each destination's work runs in its own lane (see lanes.ts), behind its own circuit (circuit.ts).
 * Every output's outcome is recorded, with its count, before the next is sent, so a redelivered record or a
 * restart never sends again what was recorded; a failed send is parked as its own item, in the same
 * transaction, and retried when due, so it never holds up other events or destinations.
 */
export class DeliveryService {
  constructor(
    private readonly catalog: CatalogRepository,
    private readonly code: UserCodeRepository,
    private readonly ingest: IngestRepository,
    private readonly deliveries: DeliveryRepository,
    private readonly credentials: CredentialService,
    private readonly policy: DeliveryPolicy = deliveryPolicyFromEnv(),
  ) {}

  /**
   * One stored ingest part, to every destination that should receive it: each (part, destination) is claimed
   * first (durable: what a crash interrupts is resumed when the lease runs out), then handed to its lane.
   */
  async deliverPart(part: { workspaceId: string; sourceId: string; requestId: string; part: number; events: Message[] }): Promise<void> {
    const destinations = await this.destinationsOf(part.workspaceId, part.sourceId);
    await Promise.all(destinations.map((destination) => this.claimAndSubmit({ ...part, destinationId: destination.id }, destination, part.events)));
  }

  private async destinationsOf(workspaceId: string, sourceId: string): Promise<Destination[]> {
    const [connections, destinations] = await Promise.all([this.catalog.listConnections(workspaceId), this.catalog.listDestinations(workspaceId)]);
    const connected = new Set(connections.filter((c) => c.sourceId === sourceId).map((c) => c.destinationId));
    return destinations.filter((d) => d.enabled && connected.has(d.id));
  }

  private async claimAndSubmit(ref: BatchRef, destination: Destination, events: Message[]): Promise<void> {
    const owner = randomUUID();
    const claim = await this.deliveries.claimBatch(ref, owner, iso(Date.now()), this.leaseUntil());
    if (!claim) return;
    await deliveryLanes.submit(
      destination.id,
      {
        run: () => this.deliverClaimed(ref, destination, events, owner, claim),
        handBack: async () => void (await this.deliveries.releaseBatch(ref, owner, iso(Date.now()))),
      },
      { wait: !circuit.isOpen(destination.id) },
    );
  }

  private async deliverClaimed(ref: BatchRef, destination: Destination, events: Message[], owner: string, claim: BatchClaim): Promise<void> {
    const run: BatchRun = {
      ref,
      owner,
      destinationType: destination.type,
      counts: { ...claim.counts },
      added: { delivered: 0, filtered: 0, aborted: 0, retried: 0 },
      errors: [],
      samples: [],
    };
    if (claim.progress >= events.length) return this.finish(run, []);
    // The claim may have waited in its lane: renewed before the first send, so no one else sends meanwhile.
    if (!(await this.deliveries.renewBatch(ref, owner, this.leaseUntil()))) return;
    const pending = events.slice(claim.progress);
    const { outcomes, secrets } = await transformForDelivery(this.code, ref.workspaceId, destination, pending, () =>
      this.credentials.forInvocation(ref.workspaceId),
    );
    for (let i = 0; i < pending.length; i++) {
      const index = claim.progress + i;
      const messageId = String(pending[i]!.messageId);
      const outcome = outcomes[i]!;
      const next = { progress: index + 1, output: 0 };
      if ('filtered' in outcome) {
        this.sample(run, { messageId, outcome: 'filtered' });
        if (!(await this.record(run, next, 'filtered'))) return;
      } else if ('error' in outcome) {
        run.errors.push({ at: iso(Date.now()), messageId, error: outcome.error });
        this.sample(run, { messageId, outcome: 'aborted', error: outcome.error });
        if (!(await this.record(run, next, 'aborted'))) return;
      } else {
        const outputs = outcome.outputs;
        if (outputs.length === 0 && !(await this.record(run, next))) return;
        for (let k = i === 0 ? claim.output : 0; k < outputs.length; k++) {
          const after = k + 1 === outputs.length ? next : { progress: index, output: k + 1 };
          if (!(await this.deliverOutput(run, destination, outputs[k]!, k, messageId, after))) return;
        }
      }
    }
    await this.finish(run, secrets);
  }

  /** Sends one output and records its outcome; false when the batch is no longer this owner's. */
  private async deliverOutput(
    run: BatchRun,
    destination: Destination,
    message: Message,
    output: number,
    messageId: string,
    after: BatchPosition,
  ): Promise<boolean> {
    const prepared = prepare(destination, message);
    if (!prepared.ok) {
      run.errors.push({ at: iso(Date.now()), messageId, error: prepared.error });
      this.sample(run, { messageId, outcome: 'aborted', error: prepared.error });
      return this.record(run, after, 'aborted');
    }
    const sent = await send(destination, prepared, circuit);
    if (sent.kind === 'delivered') {
      this.sample(run, { messageId, outcome: 'delivered', request: sent.request, status: sent.status, response: sent.response });
      return this.record(run, after, 'delivered');
    }
    run.errors.push({ at: iso(Date.now()), messageId, status: sent.status, error: sent.error });
    if (sent.kind === 'refused') {
      this.sample(run, {
        messageId,
        outcome: 'aborted',
        request: sent.request,
        status: sent.status,
        response: sent.response,
        error: sent.error,
      });
      return this.record(run, after, 'aborted');
    }
    this.sample(run, { messageId, outcome: 'retrying', request: sent.request, status: sent.status, error: sent.error });
    const parked = await this.deliveries.parkOutput(run.ref, run.owner, after, this.leaseUntil(), {
      workspaceId: run.ref.workspaceId,
      sourceId: run.ref.sourceId,
      destinationId: destination.id,
      messageId,
      output,
      requests: sent.remaining,
      ...(prepared.message && { message: prepared.message }),
      attempts: sent.kind === 'skipped' ? 0 : 1,
      firstFailedAt: iso(Date.now()),
      lastError: sent.error,
      lastStatus: sent.status,
      status: 'waiting',
      dueAt: iso(Date.now() + this.delay(1)),
    });
    // The same messageId twice for this destination: the one parked is the one that will be sent.
    if (parked === 'duplicate') return this.record(run, after);
    if (parked === 'parked') run.added.retried++;
    return parked === 'parked';
  }

  private async record(run: BatchRun, after: BatchPosition, outcome?: keyof BatchCounts): Promise<boolean> {
    const recorded = await this.deliveries.recordOutput(run.ref, run.owner, after, this.leaseUntil(), outcome);
    if (recorded && outcome) {
      run.counts[outcome]++;
      run.added[outcome]++;
    }
    return recorded;
  }

  private sample(run: BatchRun, sample: DeliverySample): void {
    if (run.samples.length < SAMPLES_PER_BATCH) run.samples.push(sample);
  }

  /** What is kept for people to read never shows a secret the transformation let out. */
  private async finish(run: BatchRun, secrets: string[]): Promise<void> {
    await this.deliveries.finishBatch(run.ref, run.owner, run.counts, redact(run.samples, secrets), redact(run.errors, secrets), iso(Date.now()));
    const { delivered, filtered, aborted, retried } = run.added;
    deliveryMetrics(run.destinationType, { delivered, filtered, aborted, retried });
  }

  private leaseUntil(): string {
    return iso(Date.now() + this.policy.leaseMs);
  }

  private delay(failures: number): number {
    return Math.min(this.policy.maxDelayMs, this.policy.baseDelayMs * 2 ** Math.max(0, failures - 1));
  }

  /**
   * The scheduler's round: batches whose delivery was interrupted (lease run out) resume after their last
   * recorded output; parked deliveries that are due get their next attempt. Each destination's share goes
   * to its lane, so one that hangs holds up none of the others.
   */
  async runDue(limit = 100): Promise<number> {
    const items = await this.deliveries.needingAttention(iso(Date.now()), limit);
    countMetrics({ SchedulerBacklog: items.length }, { scheduler: 'delivery' });
    const byDestination = new Map<string, NeedingAttention[]>();
    for (const item of items) {
      const id = item.kind === 'batch' ? item.ref.destinationId : item.parked.destinationId;
      byDestination.set(id, [...(byDestination.get(id) ?? []), item]);
    }
    let count = 0;
    await Promise.all(
      [...byDestination].map(([destinationId, queue]) =>
        deliveryLanes.submit(
          destinationId,
          {
            run: async () => {
              for (const item of queue) if (await (item.kind === 'retry' ? this.retry(item.parked) : this.resume(item.ref))) count++;
            },
            handBack: async () => undefined, // nothing was claimed yet: the items stay due
          },
          { wait: true },
        ),
      ),
    );
    return count;
  }

  /** A batch whose lease ran out: claimed again and resumed after its last recorded output. */
  private async resume(ref: BatchRef): Promise<boolean> {
    const [events, destination] = await Promise.all([
      this.ingest.readPart(ref.workspaceId, ref.sourceId, ref.requestId, ref.part),
      this.catalog.getDestination(ref.workspaceId, ref.destinationId),
    ]);
    if (!events || !destination) return false;
    const owner = randomUUID();
    const claim = await this.deliveries.claimBatch(ref, owner, iso(Date.now()), this.leaseUntil());
    if (!claim) return false;
    await this.deliverClaimed(ref, destination, events, owner, claim);
    return true;
  }

  /** One more attempt of a parked delivery, if this caller wins it. */
  private async retry(parked: ParkedDelivery): Promise<boolean> {
    const claimed = await this.deliveries.claimRetry(parked, iso(Date.now()), this.leaseUntil());
    if (!claimed) return false;
    const destination = await this.catalog.getDestination(claimed.workspaceId, claimed.destinationId);
    const at = iso(Date.now());
    const final = async (status: 'delivered' | 'aborted', requests: ParkedDelivery['requests'], lastError?: string, lastStatus?: number) => {
      const error = status === 'aborted' ? { error: { at, messageId: claimed.messageId, status: lastStatus, error: lastError ?? '' } } : {};
      if (await this.deliveries.recordRetry(claimed, { status, requests, lastError, lastStatus, ...error }, at)) {
        deliveryMetrics(destination?.type ?? 'unknown', { [status]: 1 });
      }
    };
    if (!destination || !destination.enabled) {
      await final('aborted', claimed.requests, `the destination was ${destination ? 'disabled' : 'deleted'}`, claimed.lastStatus);
      return true;
    }
    const sent: SendOutcome = await send(destination, { requests: claimed.requests, message: claimed.message as Message | undefined }, circuit);
    if (sent.kind === 'delivered') await final('delivered', []);
    else if (sent.kind === 'refused') await final('aborted', sent.remaining, sent.error, sent.status);
    else if (sent.kind === 'skipped') {
      // Not an attempt: the destination is known to be failing; wait for a probe to tell.
      await this.deliveries.recordRetry(
        claimed,
        {
          status: 'waiting',
          requests: claimed.requests,
          dueAt: iso(Date.now() + this.delay(Math.max(1, claimed.attempts))),
          countAttempt: false,
        },
        at,
      );
    } else {
      const attempts = claimed.attempts + 1;
      const expired = attempts >= this.policy.minAttempts && Date.now() - Date.parse(claimed.firstFailedAt) > this.policy.retryWindowMs;
      if (expired) await final('aborted', sent.remaining, sent.error, sent.status);
      else {
        await this.deliveries.recordRetry(
          claimed,
          {
            status: 'waiting',
            requests: sent.remaining,
            lastError: sent.error,
            lastStatus: sent.status,
            dueAt: iso(Date.now() + this.delay(attempts)),
          },
          at,
        );
        deliveryMetrics(destination.type, { retried: 1 });
      }
    }
    return true;
  }
}
