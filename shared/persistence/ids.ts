import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';

/** ULIDs sort by creation time, so revision order is key order. Monotonic within one process. */
const nextUlid = monotonicFactory();

export const newId = (): string => nextUlid();

/** A url-safe random secret of `bytes` bytes of entropy. */
export const newSecret = (bytes = 24): string => randomBytes(bytes).toString('base64url');

export const now = (): string => new Date().toISOString();
