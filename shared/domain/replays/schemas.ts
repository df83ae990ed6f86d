import * as z from 'zod';

/**
 * Replays: the events a source stored in a window, sent again to a destination (one that existed then, or
 * one created since) through its current transformation. The job is a resource that shows its progress.
 */
const dateTime = (field: string) =>
  z.iso
    .datetime({ offset: true, error: `${field}: must be an ISO 8601 date-time, such as 2026-11-24T10:00:00Z` })
    .transform((at) => new Date(at).toISOString());

export const ReplayCreate = z
  .strictObject({
    sourceId: z.string({ error: 'required: the id of the source whose stored events are replayed' }).min(1).max(64),
    destinationId: z.string({ error: 'required: the id of the destination to send them to' }).min(1).max(64),
    from: dateTime('from').describe('the window starts here (received at or after)'),
    to: dateTime('to').describe('and ends before this'),
  })
  .refine((r) => r.from < r.to, { path: ['to'], message: 'must be after from' });
export type ReplayCreate = z.output<typeof ReplayCreate>;

export const ReplayStatus = z.enum(['running', 'completed', 'cancelled', 'failed']);

/** What a replay did so far: stored parts and events read, and what became of each event at the destination. */
export const ReplayProgress = z.object({
  parts: z.number().int().describe('stored parts (pieces of ingestion requests) read'),
  events: z.number().int().describe('events read from the archive'),
  delivered: z.number().int(),
  filtered: z.number().int().describe('dropped by the transformation'),
  aborted: z.number().int().describe('refused by the destination or failed in the transformation'),
  retrying: z.number().int().describe('parked for a retry (their outcome shows in the destination’s outcomes)'),
  suppressed: z.number().int().describe('events of users suppressed now: not sent'),
  duplicate: z.number().int().describe('events whose messageId the source had accepted before (duplicates when they came): not sent'),
});
export type ReplayProgress = z.infer<typeof ReplayProgress>;

export const Replay = z.object({
  id: z.string(),
  workspaceId: z.string(),
  sourceId: z.string(),
  destinationId: z.string(),
  from: z.string(),
  to: z.string(),
  status: ReplayStatus,
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
  /** Why a failed replay stopped. */
  error: z.string().optional(),
  progress: ReplayProgress,
  /** Where it goes on from: the sort key of the last stored part it finished (opaque). */
  cursor: z.string().optional(),
});
export type Replay = z.infer<typeof Replay>;

/** A replay as the API shows it (its cursor stays inside). */
export const ReplayView = Replay.omit({ cursor: true, workspaceId: true });
export type ReplayView = z.infer<typeof ReplayView>;
export const viewOf = ({ cursor: _cursor, workspaceId: _ws, ...view }: Replay): ReplayView => view;

export const ReplayList = z.object({ replays: z.array(ReplayView) });

export const emptyProgress = (): ReplayProgress => ({ parts: 0, events: 0, delivered: 0, filtered: 0, aborted: 0, retrying: 0, suppressed: 0, duplicate: 0 });
