import { countMetrics } from '../../ops/metrics';

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
  /** How long the stream consumer (or the scheduler) waits for a destination that does not answer before moving on. */
  laneWaitMs: number;
  /** How long it waits in all for destinations that answer, but not fast enough to finish its batch. */
  laneMaxWaitMs: number;
  /** How long a source's destinations are kept before they are read again: changes reach delivery within it. */
  configCacheMs: number;
  /** The longest a moved user's events wait for their old shard while their source's shards change (shard-switch.ts). */
  shardSwitchWaitMs: number;
  /** How long a destination's circuit stays open before one probe may go. */
  circuitOpenMs: number;
  /** How many requests a run may have in flight at once to a type that takes several (DestinationType.concurrent). */
  sendConcurrency: number;
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
    laneMaxWaitMs: number('WEIR_DELIVERY_LANE_MAX_WAIT_MS', 5000),
    configCacheMs: number('WEIR_DELIVERY_CONFIG_CACHE_MS', 5000),
    shardSwitchWaitMs: number('WEIR_DELIVERY_SHARD_SWITCH_WAIT_MS', 40_000),
    circuitOpenMs: number('WEIR_DELIVERY_CIRCUIT_OPEN_MS', baseDelayMs),
    sendConcurrency: Math.floor(number('WEIR_DELIVERY_SEND_CONCURRENCY', 8)),
  };
}

/** The wait after the n-th failure of a delivery: base × 2^(n-1), at most `maxDelayMs`. */
export const retryDelay = (policy: DeliveryPolicy, failures: number): number =>
  Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** Math.max(0, failures - 1));

/** Delivery outcomes per destination type, as CloudWatch metrics (DeliveryDelivered, DeliveryRetried, …). */
export function deliveryMetrics(destinationType: string, counts: Partial<Record<'delivered' | 'filtered' | 'aborted' | 'retried', number>>): void {
  const named = Object.fromEntries(Object.entries(counts).map(([k, n]) => [`Delivery${k.charAt(0).toUpperCase()}${k.slice(1)}`, n ?? 0]));
  countMetrics(named, { destinationType });
}
