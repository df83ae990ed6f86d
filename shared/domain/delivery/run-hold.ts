import { randomUUID } from 'node:crypto';
import { componentLogger } from '../../ops/logger';
import type { DeliveryRepository } from './ports';
import type { HeldRun } from './records';

const log = componentLogger('delivery');
const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A run's hold (records.ts HeldRun): one item for all its batches, written once whoever waits for the run
 * stops waiting (the stream records are let go after it), its lease renewed while the run lasts, ended with
 * it. A run that fails leaves it to run out, for the scheduler to resume each batch from where it stands.
 * Its writes go one after another, each conditional on the owner and lease the one before left.
 */
export class RunHold {
  private current?: HeldRun;
  private queue: Promise<unknown> = Promise.resolve();
  private renewal?: NodeJS.Timeout;
  /** Another took the run over (its lease had run out): nothing of it is to be done here. */
  lost = false;
  /** The run failed: written or not, the hold is no longer renewed. */
  private abandoned = false;

  constructor(
    private readonly deliveries: Pick<DeliveryRepository, 'holdRun' | 'leaseRun' | 'endRun'>,
    private readonly run: Omit<HeldRun, 'owner' | 'leaseUntil'>,
    private readonly leaseMs: number,
    held?: HeldRun,
  ) {
    if (held) this.adopt(held);
  }

  /** Writes it (once): the run's batches are then found by the scheduler if this process dies. */
  hold(): Promise<void> {
    return this.then(async () => {
      if (this.current || this.lost) return;
      const held: HeldRun = { ...this.run, owner: randomUUID(), leaseUntil: iso(Date.now() + this.leaseMs) };
      await this.deliveries.holdRun(held);
      this.adopt(held);
    });
  }

  /** Gives it back due at once (a stop): the scheduler, or the next start, takes it. */
  release(): Promise<void> {
    return this.then(async () => {
      this.stopRenewing();
      if (this.current) await this.deliveries.leaseRun(this.current, { owner: this.current.owner, leaseUntil: iso(Date.now()) });
      this.current = undefined;
    });
  }

  /** The run is over: every batch of it done, or durable on its own. */
  end(): Promise<void> {
    return this.then(async () => {
      this.stopRenewing();
      if (this.current) await this.deliveries.endRun(this.current);
      this.current = undefined;
    });
  }

  /** The run failed: the hold is left to run out (written now, if its submitter still needs it, it is not renewed). */
  abandon(): void {
    this.abandoned = true;
    this.stopRenewing();
  }

  private adopt(held: HeldRun): void {
    this.current = held;
    if (this.abandoned) return;
    this.renewal = setInterval(() => void this.renew(), this.leaseMs / 3);
    this.renewal.unref();
  }

  private renew(): Promise<void> {
    return this.then(async () => {
      if (!this.current) return;
      const renewed = await this.deliveries.leaseRun(this.current, { owner: this.current.owner, leaseUntil: iso(Date.now() + this.leaseMs) });
      if (renewed) return void (this.current = renewed);
      this.lost = true;
      this.current = undefined;
      this.stopRenewing();
    }).catch((error: unknown) => log.warn('a held run could not be renewed; tried again', { runId: this.run.runId, error }));
  }

  private stopRenewing(): void {
    clearInterval(this.renewal);
    this.renewal = undefined;
  }

  private then(step: () => Promise<void>): Promise<void> {
    const next = this.queue.then(step);
    this.queue = next.catch(() => undefined);
    return next;
  }
}
