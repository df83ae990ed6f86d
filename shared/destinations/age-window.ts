import { eventTime } from './message';
import type { DestinationType, Message } from './types';

/** Event age windows (DestinationType.ageWindow): the one check delivery applies for every type. */

export const HOUR_MS = 3600_000;
export const DAY_MS = 24 * HOUR_MS;

/**
 * How far ahead of now an event time may be where the type gives no tolerance of its own: an hour, the
 * tolerance Mixpanel documents for its clocks (Import Events: "more than one hour in the future").
 */
const AHEAD_MS = HOUR_MS;

/**
 * Why `message` is outside its type's age window, naming the vendor's limit ("older than Facebook's 7 days");
 * undefined when it may be sent, or carries no time (the vendor then takes it as happening now).
 */
export function outsideAgeWindow(type: DestinationType, message: Message, config: Record<string, unknown>, now = Date.now()): string | undefined {
  const window = type.ageWindow?.(message, config);
  const time = window && eventTime(message)?.getTime();
  if (!window || time === undefined) return undefined;
  if (now - time > window.maxAgeMs) return `older than ${window.vendor}'s ${window.maxAge}`;
  if (time - now > (window.maxAheadMs ?? AHEAD_MS)) return `dated ahead of now, past ${window.vendor}'s tolerance`;
  return undefined;
}
