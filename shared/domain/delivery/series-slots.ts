import type { FunnelAdd } from './funnel';

/**
 * The 5-minute slots of the hourly counters, as the writers add them (series.ts reads them): an hour item's
 * `m<slot><series>` attributes, slot 0–11 of the hour, series by letter. Free of zod: ingestion's bundle loads it.
 */

export const SLOT_MINUTES = 5;

/** The 5-minute slot of its hour a time falls in (0–11). */
export const slotOf = (ms: number): number => Math.floor(new Date(ms).getUTCMinutes() / SLOT_MINUTES);

/** A destination's series, and the one-letter names their slot attributes use. */
export const DESTINATION_SERIES = { delivered: 'd', failed: 'f', filtered: 'x', retrying: 'r' } as const;
/** A source's series. */
export const SOURCE_SERIES = { received: 'r', refused: 'x', duplicate: 'd' } as const;
type SeriesNames = Record<string, string>;

/** Counters of one hour, summed over its shards: the funnel's class counts and the 5-minute slot counts. */
export type HourCounts = Map<string, Record<string, number>>;

/** The series a funnel counter counts in (counters in none, such as `routed` or `expanded`, are left out). */
const DESTINATION_CLASSES: Record<string, keyof typeof DESTINATION_SERIES> = {
  delivered: 'delivered',
  transformFailed: 'failed',
  suppressed: 'filtered',
  duplicate: 'filtered',
  ruleFiltered: 'filtered',
  filtered: 'filtered',
  retrying: 'retrying',
};
export const DESTINATION_SERIES_OF = (name: string): keyof typeof DESTINATION_SERIES | undefined =>
  name.startsWith('aborted_') ? 'failed' : DESTINATION_CLASSES[name];
/** A source's counter's series (`stored` is in none: `received` holds it with the refused). */
export const SOURCE_SERIES_OF = (name: string): keyof typeof SOURCE_SERIES | undefined =>
  name === 'received' || name === 'duplicate' ? name : name.startsWith('refused_') ? 'refused' : undefined;

export const slotAttribute = (slot: number, letter: string) => `m${slot}${letter}`;
function slotsOf(
  of: (name: string) => string | undefined,
  letters: SeriesNames,
  counts: Record<string, number | undefined>,
  atMs: number,
): Record<string, number> {
  const slots: Record<string, number> = {};
  const slot = slotOf(atMs);
  for (const [name, n] of Object.entries(counts)) {
    const series = of(name);
    if (!series || !n) continue;
    const attribute = slotAttribute(slot, letters[series]!);
    slots[attribute] = (slots[attribute] ?? 0) + n;
  }
  return slots;
}

/** A destination's funnel addition with its 5-minute slot's counts, for the time its events count at. */
export const withDestinationSlot = (add: FunnelAdd, atMs: number): FunnelAdd => ({
  ...add,
  slots: addSlots({ ...add.slots }, slotsOf(DESTINATION_SERIES_OF, DESTINATION_SERIES, add.counts, atMs)),
});

/** A source's counts' 5-minute slot counts. */
export const sourceSlots = (counts: Record<string, number | undefined>, atMs: number) => slotsOf(SOURCE_SERIES_OF, SOURCE_SERIES, counts, atMs);

export function addSlots(into: Record<string, number>, add: Record<string, number> | undefined): Record<string, number> {
  for (const [name, n] of Object.entries(add ?? {})) into[name] = (into[name] ?? 0) + n;
  return into;
}
