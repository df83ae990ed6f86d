import * as z from 'zod';
import { secretMarker, showSecrets } from '../credentials/redact';
import { ABORT_CLASSES, type AbortClass } from './funnel';

/** How much of an answer's body a failure keeps. */
const ANSWER_BODY_LIMIT = 2048;
/** How much of an original event or a sent payload a failure keeps (larger ones are cut, and say so). */
const FAILURE_PART_LIMIT = 32 * 1024;

export const FAILURE_REASONS = [...ABORT_CLASSES, 'transformFailed'] as const;
export type FailureReason = AbortClass | 'transformFailed';

/** A retry's mark on a failure: set before the send (so a failure is sent at most once more), then its end. */
export const FailureRetry = z.object({
  jobId: z.string(),
  at: z.string(),
  state: z.enum(['sending', 'delivered', 'failed', 'skipped']),
  status: z.number().optional(),
  error: z.string().optional(),
  endedAt: z.string().optional(),
});
export type FailureRetry = z.infer<typeof FailureRetry>;

/** One aborted (event output, destination): what it was, what was sent, what came back, and when. */
export const FailedEvent = z.object({
  messageId: z.string(),
  sourceId: z.string(),
  output: z.number().int(),
  /** The user it belongs to (its userId, else its anonymousId): suppressed users' failures are never shown or retried. */
  userId: z.string().optional(),
  anonymousId: z.string().optional(),
  receivedAt: z.string(),
  abortedAt: z.string(),
  reason: z.enum(FAILURE_REASONS),
  error: z.string(),
  /** The event as ingestion stored it (cut to FAILURE_PART_LIMIT as JSON text when larger: then `{truncated}`). */
  event: z.unknown().optional(),
  /** What was sent: the destination's requests (or, for a server-delivered type, the event it was given). */
  requests: z.array(z.unknown()),
  message: z.record(z.string(), z.unknown()).optional(),
  transformation: z.object({ id: z.string(), revisionId: z.string().optional() }).optional(),
  answer: z.object({ status: z.number().optional(), headers: z.record(z.string(), z.string()).optional(), body: z.string().optional() }).optional(),
  attempts: z.array(z.object({ at: z.string(), status: z.number().optional(), error: z.string().optional() })),
  /** How many attempts there were in all, where `attempts` lists only the first and the last (a parked retry's). */
  attemptCount: z.number().int().optional(),
  /**
   * The nonce of the marks that stand for the secrets it held (redact.ts), when it held any: a retry puts values
   * back in those marks only. Kept beside the payload, never shown.
   */
  secretNonce: z.string().optional(),
});
export type FailedEvent = z.infer<typeof FailedEvent>;

/**
 * Failures as they are kept: in each, every secret (a credential's value, or one of `secrets`) is a mark of a
 * nonce of its own, kept beside its payload, never its value.
 */
export function keptFailures(failures: FailedEvent[], credentials: { named?: Record<string, string>; secrets?: string[] }): FailedEvent[] {
  const marked = secretMarker(credentials.named ?? {}, credentials.secrets ?? []);
  return failures.map((failure) => {
    const { value, nonce } = marked(failure);
    return nonce === undefined ? value : { ...value, secretNonce: nonce };
  });
}

/** A kept failure as people read it: each secret's mark reads `[secret:<key>]` (or `[secret]`), the nonce left out. */
export function shownFailure(failure: FailedEvent): Omit<FailedEvent, 'secretNonce'> {
  const { secretNonce, ...shown } = failure;
  return secretNonce === undefined ? shown : showSecrets(shown, secretNonce);
}

/** A failure's id, as the API shows it: its group's key and its index, url-safe. */
export const failureId = (group: string, index: number) => Buffer.from(`${group}|${index}`, 'utf8').toString('base64url');

export function parseFailureId(id: string): { group: string; index: number } | undefined {
  const text = Buffer.from(id, 'base64url').toString('utf8');
  const match = /^(.+)\|(\d{1,6})$/.exec(text);
  return match ? { group: match[1]!, index: Number(match[2]) } : undefined;
}

/** A text that keeps at most `limit` characters, saying so when cut. */
export const truncated = (text: string, limit: number) => (text.length <= limit ? text : `${text.slice(0, limit)}…[${text.length - limit} more]`);

/** A JSON value kept whole when small, as cut text otherwise. */
export function bounded(value: unknown, limit = FAILURE_PART_LIMIT): unknown {
  if (value === undefined) return undefined;
  const text = JSON.stringify(value);
  return text.length <= limit ? value : { truncated: truncated(text, limit) };
}

/** The answer's body as kept: text, cut to ANSWER_BODY_LIMIT. */
export const answerBody = (response: unknown): string | undefined =>
  response === undefined ? undefined : truncated(typeof response === 'string' ? response : JSON.stringify(response), ANSWER_BODY_LIMIT);

/** The failures of a window, and a selection of them (a reason), paged. */
const isoTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time, such as 2026-11-24T10:00:00Z' });
export const FailuresQuery = z
  .object({
    from: isoTime,
    to: isoTime,
    reason: z.enum(FAILURE_REASONS).optional(),
    limit: z.coerce.number({ error: 'limit must be a number' }).int().min(1).max(200).default(50),
    after_cursor: z.string().max(1200).optional(),
    // By when the events were received, oldest first or newest first; a page's cursor follows its order.
    order: z.enum(['oldest', 'newest']).default('oldest'),
  })
  .strict()
  .refine((q) => Date.parse(q.from) <= Date.parse(q.to), { message: 'must not be after to', path: ['from'] });
export type FailuresQuery = z.infer<typeof FailuresQuery>;

export const FailuresPage = z.object({
  failures: z.array(z.record(z.string(), z.unknown())),
  window: z.object({ from: z.string(), to: z.string() }).describe("the whole hours of ingestion listed: the funnel's for the same from and to"),
  withheld: z
    .object({
      suppressed: z.number().int().describe('failures of this page whose user a regulation suppresses: never shown'),
      deleted: z.number().int().describe("failures of this page's groups a user deletion removed"),
    })
    .describe('what the page holds but does not show, so that the pages add up to what the funnel counts'),
  paging: z.object({ next: z.string().optional().describe('the after_cursor of the next page; absent on the last') }),
});

/** A retry by ids (at most 1,000), or by a window and an optional reason: one or the other. */
export const RetryRequest = z
  .object({
    ids: z.array(z.string().min(1).max(1200)).min(1).max(1000).optional(),
    from: isoTime.optional(),
    to: isoTime.optional(),
    reason: z.enum(FAILURE_REASONS).optional(),
  })
  .strict()
  .superRefine((body, ctx) => {
    const window = body.from !== undefined || body.to !== undefined || body.reason !== undefined;
    if (body.ids !== undefined && window) ctx.addIssue({ code: 'custom', path: ['ids'], message: 'give ids or a window (from, to, reason), not both' });
    else if (body.ids === undefined && (body.from === undefined || body.to === undefined))
      ctx.addIssue({ code: 'custom', path: [body.from === undefined ? 'from' : 'to'], message: 'required unless ids are given' });
  });
export type RetryRequest = z.infer<typeof RetryRequest>;
