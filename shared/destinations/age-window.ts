import { eventTime } from './message';
import type { AgeWindow, DestinationType, Message } from './types';

/** Event age windows (DestinationType.ageWindow): how a type declares one, and the one check delivery applies. */

export const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * How far ahead of now an event time may be where the vendor documents no tolerance of its own: an hour, the
 * tolerance Mixpanel documents for its clocks (Import Events: "more than one hour in the future").
 */
export const AHEAD_TOLERANCE = { ms: HOUR_MS, text: '1 hour' } as const;

/** A window of `maxAge` back from now and the usual tolerance ahead. */
export const ageWindowOf = (vendor: string, maxAge: { ms: number; text: string }): AgeWindow => ({ vendor, maxAge, maxAhead: AHEAD_TOLERANCE });

/**
 * Why `message` is outside its type's age window, naming the vendor's limit ("older than Facebook's 7 days");
 * undefined when it may be sent, or carries no time (the vendor then takes it as happening now).
 */
export function outsideAgeWindow(type: DestinationType, message: Message, config: Record<string, unknown>, now = Date.now()): string | undefined {
  const window = type.ageWindow?.(message, config);
  const time = window && eventTime(message)?.getTime();
  if (!window || time === undefined) return undefined;
  if (now - time > window.maxAge.ms) return `older than ${window.vendor}'s ${window.maxAge.text}`;
  if (time - now > window.maxAhead.ms) return `more than ${window.maxAhead.text} ahead of now, past ${window.vendor}'s limit`;
  return undefined;
}
