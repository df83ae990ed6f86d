import type { Source } from '../catalog/schemas';
import { RateLimitedError } from '../errors';
import { componentLogger } from '../../ops/logger';
import type { IngestRepository } from './ports';
import { TokenBucket, type Clock } from './token-bucket';

const log = componentLogger('ingestion');

/** Events a second a source may send when it sets no limit of its own (WEIR_SOURCE_INBOUND_LIMIT). */
export const DEFAULT_INBOUND_LIMIT = 10_000;
/** A source may send this many seconds' worth of its limit at once (its bucket's capacity). */
export const BURST_SECONDS = 2;
/** How often, at most, a process reports a source's use and flushes its refusals to the store. */
export const REPORT_INTERVAL_MS = 1000;
/** A process that took less than this part of a source's limit in a second does not report it (quiet sources cost no write). */
export const QUIET_SHARE = 0.01;
/** The least part of its limit a process keeps for a source, so a process never shuts a source out. */
export const MIN_SHARE = 0.01;
const MAX_BUDGETS = 10_000;
/** Processes take more of a source's limit only while together they took less than this part of it. */
const GROW_BELOW = 0.9;

export interface InboundSettings {
  defaultLimit: number;
}

export function inboundSettingsFromEnv(env: NodeJS.ProcessEnv = process.env): InboundSettings {
  const raw = env.WEIR_SOURCE_INBOUND_LIMIT;
  if (raw === undefined || raw.trim() === '') return { defaultLimit: DEFAULT_INBOUND_LIMIT };
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`WEIR_SOURCE_INBOUND_LIMIT must be a whole number of events a second, at least 1; got ${raw}`);
  return { defaultLimit: value };
}

const events_ = (n: number) => `${n} event${n === 1 ? '' : 's'}`;

/** One source as this process limits it. */
interface Budget {
  workspaceId: string;
  sourceId: string;
  limit: number;
  /** The part of the limit this process takes, from what every process reported (1 while it is alone). */
  share: number;
  bucket: TokenBucket;
  /** Since the last report: events taken, and the refused requests and their events. */
  taken: number;
  refusedEvents: number;
  refusedRequests: number;
  lastRefusedAt?: string;
  reportedAt: number;
  /** The window this process last reported to, and the rate it reported there. */
  reportedWindow?: number;
  reportedRate: number;
  reporting?: Promise<void>;
  /** Set while refusals wait for their report with no request to start it. */
  timer?: NodeJS.Timeout;
}

type Store = Pick<IngestRepository, 'reportInbound' | 'countThrottled'>;

/**
 * The inbound limit of every source, enforced in the process with no store round trip on the request's path:
 * a token bucket per source at the process's share of the limit. Processes that take a noticeable part of a
 * source's limit report their rate, at most once a second and after the answer, to a counter of the source's
 * current second, and read the total of the second before: a process that is not alone scales its share by
 * limit ÷ total, so that together they take about the limit. Refused requests are counted in the source's stats
 * in the same report. docs/reference/api/ingestion.md, "Inbound limit", says what this guarantees and what it does not.
 */
export class InboundLimits {
  private readonly budgets = new Map<string, Budget>();

  constructor(
    private readonly store: Store,
    private readonly settings: InboundSettings = inboundSettingsFromEnv(),
    private readonly clock: Clock = () => Date.now(),
  ) {}

  limitOf(source: Pick<Source, 'inboundLimit'>): number {
    return source.inboundLimit ?? this.settings.defaultLimit;
  }

  /** Takes `events` of the source's budget, or refuses the whole request: RateLimitedError with the seconds to wait. */
  admit(workspaceId: string, source: Pick<Source, 'id' | 'inboundLimit'>, events: number): void {
    const budget = this.budgetOf(workspaceId, source);
    const wait = budget.bucket.take(events);
    if (wait === 0) budget.taken += events;
    else {
      budget.refusedEvents += events;
      budget.refusedRequests += 1;
      budget.lastRefusedAt = new Date(this.clock()).toISOString();
    }
    this.maybeReport(budget);
    if (wait > 0) {
      this.reportLater(budget);
      const retryAfter = Math.max(1, Math.ceil(wait));
      throw new RateLimitedError(
        `Max requests limit reached: source ${source.id} takes at most ${events_(budget.limit)} a second (bursts of ${budget.limit * BURST_SECONDS}); retry after ${retryAfter} s`,
        retryAfter,
      );
    }
  }

  /** Reports every source's refusals not yet counted (a process that stops calls it), and waits for reports in flight. */
  async flush(): Promise<void> {
    await Promise.all([...this.budgets.values()].map((b) => b.reporting));
    await Promise.all([...this.budgets.values()].filter((b) => b.refusedRequests > 0).map((b) => this.report(b, false)));
  }

  private budgetOf(workspaceId: string, source: Pick<Source, 'id' | 'inboundLimit'>): Budget {
    const limit = this.limitOf(source);
    let budget = this.budgets.get(source.id);
    if (!budget) {
      if (this.budgets.size >= MAX_BUDGETS) this.forgetIdle();
      budget = {
        workspaceId,
        sourceId: source.id,
        limit,
        share: 1,
        bucket: new TokenBucket(limit, limit * BURST_SECONDS, this.clock),
        taken: 0,
        refusedEvents: 0,
        refusedRequests: 0,
        reportedAt: this.clock(),
        reportedRate: 0,
      };
      this.budgets.set(source.id, budget);
    } else if (budget.limit !== limit) {
      // The source's limit was changed (the process reads sources again every few seconds).
      budget.limit = limit;
      this.resize(budget);
    }
    return budget;
  }

  /** Keeps the process's memory bounded: sources with nothing left to report are forgotten (a full bucket next time). */
  private forgetIdle(): void {
    for (const [id, b] of this.budgets) if (!b.reporting && b.refusedRequests === 0) this.budgets.delete(id);
  }

  private resize(budget: Budget): void {
    const rate = budget.limit * budget.share;
    budget.bucket.resize(rate, Math.max(1, rate * BURST_SECONDS));
  }

  /** Refusals are counted within about a second even when no request of the source follows. */
  private reportLater(budget: Budget): void {
    if (budget.timer) return;
    const delay = Math.max(0, REPORT_INTERVAL_MS - (this.clock() - budget.reportedAt)) + 10;
    budget.timer = setTimeout(() => {
      budget.timer = undefined;
      if (budget.refusedRequests > 0 && !budget.reporting) this.maybeReport(budget);
    }, delay);
    budget.timer.unref();
  }

  private maybeReport(budget: Budget): void {
    if (budget.reporting || this.clock() - budget.reportedAt < REPORT_INTERVAL_MS) return;
    const busy = budget.taken / ((this.clock() - budget.reportedAt) / 1000) >= budget.limit * QUIET_SHARE;
    if (!busy && budget.share === 1 && budget.refusedRequests === 0) {
      budget.taken = 0;
      budget.reportedAt = this.clock();
      return;
    }
    budget.reporting = this.report(budget, busy || budget.share < 1).finally(() => (budget.reporting = undefined));
  }

  /** One report: the rate to the current second's counter (the total of the second before read back), the refusals to the stats. */
  private async report(budget: Budget, withRate: boolean): Promise<void> {
    const now = this.clock();
    const rate = Math.round(budget.taken / Math.max(1, (now - budget.reportedAt) / 1000));
    const refused = { events: budget.refusedEvents, requests: budget.refusedRequests, at: budget.lastRefusedAt ?? new Date(now).toISOString() };
    Object.assign(budget, { taken: 0, refusedEvents: 0, refusedRequests: 0, lastRefusedAt: undefined, reportedAt: now });
    const window = Math.floor(now / 1000);
    const { workspaceId, sourceId } = budget;
    const [rates, counted] = await Promise.allSettled([
      withRate ? this.store.reportInbound(workspaceId, sourceId, window, rate) : Promise.resolve(undefined),
      refused.requests > 0 ? this.store.countThrottled(workspaceId, sourceId, refused.events, refused.requests, refused.at) : Promise.resolve(),
    ]);
    if (counted.status === 'rejected') {
      // Counted at the next report instead.
      budget.refusedEvents += refused.events;
      budget.refusedRequests += refused.requests;
      budget.lastRefusedAt ??= refused.at;
      log.warn('inbound refusals not counted yet', { sourceId, error: counted.reason });
    }
    if (rates.status === 'rejected') log.warn('inbound rate not reported', { sourceId, error: rates.reason });
    else if (rates.value !== undefined) this.rescale(budget, rates.value, window, rate);
  }

  /**
   * The share from the second before's total: alone there, the whole limit. Over the limit, this process's
   * part of that total (so the parts add up to the limit, whatever the shares were then); well under it (below
   * 90%), twice the share; in between, as it is.
   */
  private rescale(budget: Budget, previousTotal: number, window: number, rate: number): void {
    const mine = budget.reportedWindow === window - 1 ? budget.reportedRate : 0;
    budget.reportedWindow = window;
    budget.reportedRate = rate;
    const others = previousTotal - mine;
    let share = budget.share;
    if (others <= 0) share = 1;
    else if (previousTotal > budget.limit) share = mine > 0 ? mine / previousTotal : (share * budget.limit) / previousTotal;
    else if (previousTotal < budget.limit * GROW_BELOW) share *= 2;
    const bounded = Math.min(1, Math.max(MIN_SHARE, share));
    if (bounded === budget.share) return;
    budget.share = bounded;
    this.resize(budget);
  }
}
