import { bounded, type FailedEvent, type FailureReason } from './failures';
import { ingestedAt } from './funnel';
import type { ParkedDelivery } from './records';
import { parseSeq } from './batch-run';
import { userOf } from './run-funnel';

/**
 * The failure a parked delivery leaves when its last attempt aborts it: what was sent (its requests, the failed
 * one first), the stored event it came from when still there, its first and last attempts and their count.
 */
export function retryFailure(
  claimed: ParkedDelivery,
  original: Record<string, unknown> | undefined,
  outcome: { lastError?: string; lastStatus?: number; reason?: FailureReason },
  at: string,
): FailedEvent {
  const { requestId } = parseSeq(claimed.seq);
  const error = outcome.lastError ?? claimed.lastError;
  const status = outcome.lastStatus || undefined;
  const requests = bounded(claimed.requests);
  return {
    messageId: claimed.messageId,
    sourceId: claimed.sourceId,
    output: claimed.output,
    ...userOf(original ?? claimed.message ?? { userId: userOfKey(claimed.userKey) }),
    receivedAt: new Date(ingestedAt(requestId)).toISOString(),
    abortedAt: at,
    reason: outcome.reason ?? 'http4xx',
    error,
    ...(original && { event: bounded(original) }),
    requests: Array.isArray(requests) ? requests : [requests],
    ...(claimed.message && { message: bounded(claimed.message) as Record<string, unknown> }),
    ...(status !== undefined && { answer: { status } }),
    attempts: [
      { at: claimed.firstFailedAt, error: 'parked for a retry' },
      { at, ...(status !== undefined && { status }), error },
    ],
    attemptCount: claimed.attempts + 1,
  };
}

/** A parked delivery's user key (`u:<userId>`) as a userId, for the suppression check when the event is gone. */
const userOfKey = (userKey: string | undefined) => (userKey?.startsWith('u:') ? userKey.slice(2) : undefined);
