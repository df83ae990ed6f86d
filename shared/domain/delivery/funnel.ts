import { createHash } from 'node:crypto';
import * as z from 'zod';
import { hourOf } from './hours';

export { hourOf, ingestedAt } from './hours';

/**
 * A destination's funnel, counted per hour of ingestion (the hour its event's request was answered): every
 * (event output, destination) lands in exactly one class, counted in the write that records its outcome, so
 * that for any window of whole hours `routed + expanded` equals the sum of the classes.
 */
export const ABORT_CLASSES = ['http4xx', 'config', 'transformation', 'vendor', 'expired', 'age'] as const;
export type AbortClass = (typeof ABORT_CLASSES)[number];

/** The classes of the funnel, as counter names. */
type FunnelClass = 'suppressed' | 'duplicate' | 'ruleFiltered' | 'filtered' | 'transformFailed' | 'delivered' | `aborted_${AbortClass}` | 'retrying';

/**
 * What one batch (or one retry's end) adds to its hour: class counts, `routed` (events of the batch, once, at
 * its finish), `expanded` (outputs of an event beyond its first), latency bins, and error classes with a sample.
 */
export interface FunnelAdd {
  counts: Partial<Record<FunnelClass | 'routed' | 'expanded', number>>;
  /** Delivered outputs per latency bin (latencyBin). */
  latency: Record<number, number>;
  /** Error classes seen: count and one sample answer each. */
  errors: Record<string, { count: number; sample: ErrorSample }>;
  /** The same counts by 5-minute slot of the hour and series, as slot attributes (series.ts). */
  slots?: Record<string, number>;
}

interface ErrorSample {
  class: AbortClass | 'transformFailed';
  status?: number;
  error: string;
}

export const emptyFunnel = (): FunnelAdd => ({ counts: {}, latency: {}, errors: {} });

/**
 * Where an abort belongs: the transformation's own failures, a 4xx, a vendor's verdict in a 2xx, the setup, or the
 * retry window. Class `age` (an event outside its vendor's age window, never sent) is set where it is decided
 * (sender.ts), not read from a text.
 */
export function abortClassOf(error: string, status?: number): AbortClass | 'transformFailed' {
  if (error.startsWith('transformation failed:')) return 'transformFailed';
  if (status !== undefined && status >= 200 && status < 300) return 'vendor';
  if (status !== undefined && status >= 400 && status < 500 && status !== 408 && status !== 429) return 'http4xx';
  if (status !== undefined && status > 0) return 'expired';
  if (/disabled|deleted|not delivered yet|unknown destination type|config/i.test(error)) return 'config';
  return 'transformation';
}

export const funnelClassOf = (kind: AbortClass | 'transformFailed'): FunnelClass => (kind === 'transformFailed' ? 'transformFailed' : `aborted_${kind}`);

/** An error class's key: its class, status and the text with numbers and ids taken out (at most 16 characters). */
function errorKey(sample: ErrorSample): string {
  const shape = sample.error.replace(/[0-9a-f]{8,}|\d+/gi, '#').slice(0, 200);
  return createHash('sha256')
    .update(`${sample.class}|${sample.status ?? ''}|${shape}`)
    .digest('hex')
    .slice(0, 16);
}

/**
 * How much of an error class's first answer its hour keeps: enough to recognise it (the failed event itself keeps
 * the whole answer), and short enough that an hour item with one error class and every 5-minute slot stays
 * under 1 KB, one write unit's size (series.ts).
 */
const ERROR_SAMPLE_CHARS = 200;

export function addError(funnel: FunnelAdd, sample: ErrorSample): void {
  const key = errorKey(sample);
  const entry = (funnel.errors[key] ??= { count: 0, sample: { ...sample, error: sample.error.slice(0, ERROR_SAMPLE_CHARS) } });
  entry.count++;
}

export function addCount(funnel: FunnelAdd, name: FunnelClass | 'routed' | 'expanded', n = 1): void {
  funnel.counts[name] = (funnel.counts[name] ?? 0) + n;
}

/**
 * Latency bins: bin b holds latencies from BIN_BASE·1.2^(b−1) up to BIN_BASE·1.2^b ms (bin 0 below BIN_BASE), so
 * a percentile read from them is within 20 % of the true one; 90 bins reach past a day.
 */
const BIN_BASE = 10;
const BIN_RATIO = 1.2;
const LATENCY_BINS = 90;
export const latencyBin = (ms: number): number =>
  ms < BIN_BASE ? 0 : Math.min(LATENCY_BINS - 1, Math.floor(Math.log(ms / BIN_BASE) / Math.log(BIN_RATIO)) + 1);
/** A bin's upper bound (ms): what a percentile that falls in it reads as. */
export const binUpper = (bin: number): number => Math.round(BIN_BASE * BIN_RATIO ** bin);

/** Adds one funnel addition to another (batches finished together move their hour's counters once). */
export function addFunnel(into: FunnelAdd, add: FunnelAdd): FunnelAdd {
  for (const [name, n] of Object.entries(add.counts)) addCount(into, name as FunnelClass, n ?? 0);
  for (const [bin, n] of Object.entries(add.latency)) into.latency[Number(bin)] = (into.latency[Number(bin)] ?? 0) + n;
  for (const [key, { count, sample }] of Object.entries(add.errors)) (into.errors[key] ??= { count: 0, sample }).count += count;
  if (add.slots) for (const [name, n] of Object.entries(add.slots)) (into.slots ??= {})[name] = (into.slots[name] ?? 0) + n;
  return into;
}

export function addLatency(funnel: FunnelAdd, ms: number): void {
  const bin = latencyBin(Math.max(0, ms));
  funnel.latency[bin] = (funnel.latency[bin] ?? 0) + 1;
}

/** The percentile p (0–1) of a histogram, as its bin's upper bound; undefined when it is empty. */
export function percentile(bins: Record<number, number>, p: number): number | undefined {
  const total = Object.values(bins).reduce((a, b) => a + b, 0);
  if (total === 0) return undefined;
  const rank = Math.ceil(p * total);
  let seen = 0;
  for (const bin of Object.keys(bins)
    .map(Number)
    .sort((a, b) => a - b)) {
    seen += bins[bin]!;
    if (seen >= rank) return binUpper(bin);
  }
  return undefined;
}

const isoTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, such as 2026-11-24T10:00:00Z' });

/** A window: from and to, ISO times; read as the whole hours they touch. */
export const DeliveryWindowQuery = z
  .object({ from: isoTime, to: isoTime.optional() })
  .strict()
  .refine((q) => q.to === undefined || Date.parse(q.from) <= Date.parse(q.to), { message: 'must not be after to', path: ['from'] })
  .refine((q) => Date.parse(q.to ?? new Date().toISOString()) - Date.parse(q.from) <= 31 * 24 * 3600_000, {
    message: 'the window is at most 31 days',
    path: ['from'],
  });
export type DeliveryWindowQuery = z.infer<typeof DeliveryWindowQuery>;

/** The hours a window touches, first and last: what is read, and what the answer says it covers. */
export function windowHours(query: { from: string; to?: string }): { fromHour: string; toHour: string; from: string; to: string } {
  const fromHour = hourOf(Date.parse(query.from));
  const toHour = hourOf(query.to ? Date.parse(query.to) - 1 : Date.now());
  const last = toHour < fromHour ? fromHour : toHour;
  return { fromHour, toHour: last, from: `${fromHour}:00:00.000Z`, to: new Date(Date.parse(`${last}:00:00.000Z`) + 3600_000).toISOString() };
}

const count = z.number().int();
export const DestinationDelivery = z.object({
  destinationId: z.string(),
  window: z.object({ from: z.string(), to: z.string() }).describe('the whole hours of ingestion the counts cover'),
  routed: count.describe('events routed to the destination (each once)'),
  expanded: count.describe('outputs beyond the first of events the transformation fanned out'),
  suppressed: count,
  duplicate: count.describe('events whose messageId their source had accepted within its de-duplication window: not sent again'),
  ruleFiltered: count.describe("stopped by a rule of the destination's connection, before the transformation"),
  filtered: count.describe('dropped by the transformation'),
  transformFailed: count.describe('failed in the transformation'),
  delivered: count,
  aborted: z.object({
    total: count,
    http4xx: count,
    config: count,
    transformation: count,
    vendor: count,
    expired: count,
    age: count,
  }),
  retrying: count,
  latencyMs: z.object({ p50: z.number().optional(), p95: z.number().optional(), delivered: count }).describe('ingestion answer to the 2xx'),
  errorClasses: z.array(z.object({ class: z.string(), status: z.number().optional(), count, sample: z.string() })),
});
export type DestinationDelivery = z.infer<typeof DestinationDelivery>;

/** Bucket counters summed: what a window of them reads as. */
export function destinationDelivery(destinationId: string, window: { from: string; to: string }, sum: Record<string, unknown>): DestinationDelivery {
  const n = (name: string) => Number(sum[name] ?? 0);
  const aborted = Object.fromEntries(ABORT_CLASSES.map((c) => [c, n(`aborted_${c}`)])) as Record<AbortClass, number>;
  const latency: Record<number, number> = {};
  for (let b = 0; b < LATENCY_BINS; b++) if (n(`lat${b}`) > 0) latency[b] = n(`lat${b}`);
  const samples = (sum.errorSamples ?? {}) as Record<string, ErrorSample>;
  const errorClasses = Object.entries(samples)
    .map(([key, sample]) => ({
      class: sample.class,
      ...(sample.status !== undefined && { status: sample.status }),
      count: n(`err_${key}`),
      sample: sample.error,
    }))
    .sort((a, b) => b.count - a.count)
    .slice(0, 10);
  return {
    destinationId,
    window,
    routed: n('routed'),
    expanded: n('expanded'),
    suppressed: n('suppressed'),
    duplicate: n('duplicate'),
    ruleFiltered: n('ruleFiltered'),
    filtered: n('filtered'),
    transformFailed: n('transformFailed'),
    delivered: n('delivered'),
    aborted: { total: Object.values(aborted).reduce((a, b) => a + b, 0), ...aborted },
    retrying: n('retrying'),
    latencyMs: {
      ...optional('p50', percentile(latency, 0.5)),
      ...optional('p95', percentile(latency, 0.95)),
      delivered: Object.values(latency).reduce((a, b) => a + b, 0),
    },
    errorClasses,
  };
}

const optional = (name: string, value: number | undefined) => (value === undefined ? {} : { [name]: value });
