import { createHash } from 'node:crypto';

/**
 * The ULID an event is de-duplicated by at Customer.io (Track v2 takes an event's `id` only as a ULID,
 * github.com/ulid/spec): 48 bits of milliseconds since the epoch, then 80 bits, in Crockford's base 32 (26
 * characters). Made the same way every time from the same event: the time from the event's time (0 when it
 * has none), the 80 bits from a hash of its messageId, so an event sent again carries the id it went with.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const MAX_TIME = 2 ** 48 - 1;

function base32(value: bigint, length: number): string {
  let out = '';
  for (let i = 0; i < length; i++) {
    out = CROCKFORD[Number(value & 31n)]! + out;
    value >>= 5n;
  }
  return out;
}

export function ulidOf(messageId: string, time: Date | undefined): string {
  const ms = Math.min(Math.max(time?.getTime() ?? 0, 0), MAX_TIME);
  const hash = createHash('sha256').update(`weir:${messageId}`).digest();
  return base32(BigInt(ms), 10) + base32(BigInt(`0x${hash.subarray(0, 10).toString('hex')}`), 16);
}
