import * as z from 'zod';

/**
 * A stream record that a consumer could not handle after its attempts, parked with its content and its last
 * error: the stream forgets records after 24 hours, and an on-failure queue would hold only their position.
 * Putting it in `replaying` state changes the item, and that change reaches the same consumer through its
 * stream filter (`parkedRecordFilter`), which handles the content again and removes the item once done.
 * The repository parses the items it reads, and the consumer loop the parked images it is handed, with it.
 */
export const ParkedRecord = z.object({
  consumer: z.string(),
  workspaceId: z.string(),
  /** The stream record's id (eventID): one parked item per record and consumer. */
  eventId: z.string(),
  sequence: z.string(),
  eventName: z.string(),
  /** The record's new image as a plain item. */
  image: z.record(z.string(), z.unknown()),
  lastError: z.string(),
  /** Failed replays so far (0 when just parked). */
  attempts: z.number().int(),
  parkedAt: z.string(),
  status: z.enum(['waiting', 'replaying']),
  /** When the scheduler replays it next (waiting), or takes it back if the replay was lost (replaying). */
  dueAt: z.string(),
  replays: z.number().int(),
});
export type ParkedRecord = z.infer<typeof ParkedRecord>;

/** What names one parked record: its consumer, workspace and stream record. */
export type ParkedRef = Pick<ParkedRecord, 'consumer' | 'workspaceId' | 'eventId'>;

/** What the operator API shows of a parked stream record (its content stays in the table). */
export const ParkedRecordView = z.object({
  id: z.string(),
  consumer: z.string(),
  workspaceId: z.string(),
  eventId: z.string(),
  eventName: z.string(),
  status: z.enum(['waiting', 'replaying']),
  lastError: z.string(),
  attempts: z.number().int(),
  parkedAt: z.string(),
  dueAt: z.string(),
  item: z.record(z.string(), z.unknown()),
});
export type ParkedRecordView = z.infer<typeof ParkedRecordView>;

export const ParkedRecordsQuery = z.object({ limit: z.coerce.number().int().min(1).max(1000).default(100) }).strict();
export const ParkedRecordIdParams = z.object({ id: z.string().min(1).max(1024) });
