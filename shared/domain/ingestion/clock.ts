/**
 * A device whose clock is wrong: its events reach destinations at their real time. The device's time of an
 * event and of its sending (`sentAt`) are read on the same wrong clock, so their difference is true, and the
 * event happened that long before the request was received:
 *
 *     timestamp = receivedAt − (sentAt − device time)
 *
 * Where the device's time is read from depends on the client:
 * - `originalTimestamp` (the RudderStack SDKs, and every path but Segment's one-letter ones). A `timestamp`
 *   the caller set is its own statement of when the event happened (a server-side import, a backfill) and is
 *   kept as it is.
 * - `timestamp` (Segment's browser and mobile clients, which post to `/v1/t`, `/v1/p`, … `/v1/b`): it is the
 *   device's time; it is kept as `originalTimestamp` and `timestamp` becomes the corrected time, as Segment
 *   documents for its clients.
 * An event without a device time, or a value that is not a date, is left as it came.
 */
export type ClockRule = 'original-timestamp' | 'device-timestamp';

const timeOf = (value: unknown): number | undefined => {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  return Number.isFinite(ms) && new Date(ms).getUTCFullYear() >= 1970 ? ms : undefined;
};

export function correctClock(event: Record<string, unknown>, at: { receivedAt: string; sentAt: unknown; rule: ClockRule }): void {
  if (at.rule === 'device-timestamp') {
    if (event.originalTimestamp === undefined && event.timestamp !== undefined) event.originalTimestamp = event.timestamp;
  } else if (event.timestamp !== undefined) {
    return;
  }
  const device = timeOf(event.originalTimestamp);
  if (device === undefined) return;
  const sent = timeOf(at.sentAt);
  const happened = new Date(sent === undefined ? device : Date.parse(at.receivedAt) - (sent - device));
  if (!Number.isNaN(happened.getTime())) event.timestamp = happened.toISOString();
}
