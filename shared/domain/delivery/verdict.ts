import type { DestinationRequest } from '../../destinations';
import type { SendOutcome } from './sender';

/**
 * What a send came to for delivery, whichever path sent it (a stream batch's event, a parked delivery's next
 * attempt): delivered; refused, which no retry will change (aborted); or to be tried again, `skipped` when
 * nothing was sent because the destination's circuit is open (not an attempt).
 */
export type Verdict =
  | { kind: 'delivered' }
  | { kind: 'refused'; error: string; status: number; remaining: DestinationRequest[] }
  | { kind: 'retryable'; error: string; status: number; remaining: DestinationRequest[]; skipped: boolean; retryAfterMs?: number };

/** The one mapping from a send's outcome to delivery's verdict. */
export function verdictOf(sent: SendOutcome): Verdict {
  if (sent.kind === 'delivered') return { kind: 'delivered' };
  if (sent.kind === 'refused') return { kind: 'refused', error: sent.error, status: sent.status, remaining: sent.remaining };
  const wait = sent.kind === 'retryable' && sent.retryAfterMs !== undefined ? { retryAfterMs: sent.retryAfterMs } : {};
  return { kind: 'retryable', error: sent.error, status: sent.status, remaining: sent.remaining, skipped: sent.kind === 'skipped', ...wait };
}

/** An answer, even a failure, is progress; a time-out or a refused connection is not. */
export const answered = (sent: SendOutcome): boolean => sent.kind === 'delivered' || sent.kind === 'refused' || (sent.kind === 'retryable' && sent.answered);
