import { createHash } from 'node:crypto';
import { uuidToULID } from 'ulid';

/**
 * The ULID an event is de-duplicated by at Customer.io (Track v2 takes an event's `id` only as a ULID,
 * github.com/ulid/spec): 48 bits of milliseconds since the epoch, then 80 bits, in Crockford's base 32 (26
 * characters, written by the `ulid` library from the 16 bytes). Made the same way every time from the same
 * event: the time from the event's time (0 when it has none), the 80 bits from a hash of its messageId, so an
 * event sent again carries the id it went with.
 */
const MAX_TIME = 2 ** 48 - 1;

export function ulidOf(messageId: string, time: Date | undefined): string {
  const bytes = Buffer.alloc(16);
  bytes.writeUIntBE(Math.min(Math.max(time?.getTime() ?? 0, 0), MAX_TIME), 0, 6);
  createHash('sha256').update(`weir:${messageId}`).digest().copy(bytes, 6, 0, 10);
  const hex = bytes.toString('hex');
  return uuidToULID(`${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`);
}
