import { z } from 'zod';

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
