import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory, ulid } from 'ulid';

/**
 * The random bytes ULIDs draw from, a few kilobytes at a time: the library's own source asks the system for
 * one byte per character (16 calls per id), which cost ingestion more than its hashing.
 */
const pool = new Uint8Array(4096);
let drawn = pool.length;
const randomFraction = (): number => {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  return pool[drawn++]! / 256;
};

/** ULIDs sort by creation time, so revision order is key order. Monotonic within one process. */
const nextUlid = monotonicFactory(randomFraction);

export const newId = (): string => nextUlid();

/**
 * A ULID whose time is exactly `ms` (not monotonic): a stored request's id carries the time it was received,
 * so its key sorts by receipt, and "received before" is a key range (shard-switch.ts).
 */
export const newIdAt = (ms: number): string => ulid(ms, randomFraction);

/** A url-safe random secret of `bytes` bytes of entropy. */
export const newSecret = (bytes = 24): string => randomBytes(bytes).toString('base64url');

export const now = (): string => new Date().toISOString();

/** Milliseconds and a 12-bit counter of the last UUIDv7 made, so ids made within one millisecond still sort. */
let lastMs = 0;
let sequence = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter (its "method 1"), then random
 * bits. It is a UUID where the contract asks for one, and sorts by creation time, also within a millisecond
 * in one process, so key order is creation order.
 */
export function uuidv7(): string {
  let ms = Date.now();
  if (ms <= lastMs) {
    ms = lastMs;
    sequence++;
    if (sequence > 0xfff) {
      ms++;
      sequence = 0;
    }
  } else {
    sequence = 0;
  }
  lastMs = ms;
  const bytes = randomBytes(16);
  bytes.writeUIntBE(ms, 0, 6);
  bytes[6] = 0x70 | (sequence >> 8);
  bytes[7] = sequence & 0xff;
  bytes[8] = 0x80 | (bytes[8]! & 0x3f);
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
