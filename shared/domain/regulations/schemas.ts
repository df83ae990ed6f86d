import * as z from 'zod';
import { MAX_IDENTIFIER_BYTES } from '../ingestion/schemas';

/** Data regulations (SPEC §2.6, §4.B): request bodies, the list query and what the API shows. */
export const MAX_USERS_PER_REQUEST = 1000;
export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

const Id = z.string({ error: 'must be a string' }).min(1, 'must not be empty').max(64);
export const RegulationType = z.enum(['suppress', 'suppress_with_delete'], {
  error: 'regulationType must be suppress or suppress_with_delete',
});

/** userId is mandatory and never blank; phone, email and custom identifiers are optional strings. */
const User = z
  .object({
    userId: z
      .string({ error: 'userId must be a string' })
      .trim()
      .min(1, 'userId must not be blank')
      .refine((id) => Buffer.byteLength(id) <= MAX_IDENTIFIER_BYTES, `userId must be at most ${MAX_IDENTIFIER_BYTES} bytes`),
    phone: z.string().max(512).optional(),
    email: z.string().max(512).optional(),
  })
  .catchall(z.string({ error: 'custom identifiers must be strings' }).max(512));

export const RegulationCreate = z
  .strictObject({
    regulationType: RegulationType,
    sourceIds: z.array(Id).min(1, 'must list at least one source; leave it out for all sources').max(100).optional(),
    destinationIds: z.array(Id).min(1, 'must list at least one destination; leave it out for every destination').max(100).optional(),
    users: z.array(User).min(1, 'must list at least one user').max(MAX_USERS_PER_REQUEST),
  })
  .superRefine((body, ctx) => {
    if (body.sourceIds && body.regulationType !== 'suppress') {
      ctx.addIssue({ code: 'custom', path: ['sourceIds'], message: 'allowed only with regulationType suppress' });
    }
    if (body.destinationIds && body.regulationType !== 'suppress_with_delete') {
      ctx.addIssue({ code: 'custom', path: ['destinationIds'], message: 'allowed only with regulationType suppress_with_delete' });
    }
    const seen = new Map<string, number>();
    body.users.forEach((user, i) => {
      const first = seen.get(user.userId);
      if (first !== undefined) ctx.addIssue({ code: 'custom', path: ['users', i, 'userId'], message: `same userId as users[${first}]` });
      else seen.set(user.userId, i);
    });
  });
export type RegulationCreate = z.output<typeof RegulationCreate>;

const Flag = z.enum(['true', 'false'], { error: 'must be true or false' });
export const RegulationListQuery = z.object({
  after_cursor: z.string().max(64).optional(),
  per_page: z.coerce.number({ error: 'per_page must be a number' }).int('per_page must be an integer').min(1).max(MAX_PAGE_SIZE).optional(),
  userId: z
    .string()
    .trim()
    .min(1)
    .refine((id) => Buffer.byteLength(id) <= MAX_IDENTIFIER_BYTES, `userId must be at most ${MAX_IDENTIFIER_BYTES} bytes`)
    .optional(),
  regulationType: RegulationType.optional(),
  canceled: Flag.optional(),
});
export type RegulationListQuery = z.output<typeof RegulationListQuery>;

export const Regulation = z.object({
  id: z.uuid(),
  workspaceId: z.string(),
  canceled: z.boolean(),
  regulationType: RegulationType,
  attributes: z.record(z.string(), z.string()).describe('the user: userId and any other identifiers given'),
  sourceIds: z.array(z.string()).optional().describe('suppress: the sources it covers (absent: all)'),
  destinationIds: z.array(z.string()).optional().describe('suppress_with_delete: where the user is deleted'),
  createdAt: z.iso.datetime(),
  canceledAt: z.iso.datetime().optional(),
});
export type Regulation = z.infer<typeof Regulation>;

export const JOB_STATUSES = ['pending', 'running', 'failed', 'completed', 'not_found', 'unsupported', 'aborted', 'canceled'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];
/** Statuses after which a job never runs again. */
export const FINAL_JOB_STATUSES: ReadonlySet<JobStatus> = new Set(['completed', 'not_found', 'unsupported', 'aborted', 'canceled']);

/** A deletion job as it is kept: one per (regulation, destination), every state change a conditional write. */
export const DeletionJob = z.object({
  workspaceId: z.string(),
  regulationId: z.string(),
  destinationId: z.string(),
  destinationType: z.string(),
  status: z.enum(JOB_STATUSES),
  attempts: z.number().int(),
  lastError: z.string().optional(),
  reason: z.string().optional(),
  /** When the next attempt may start (pending and failed jobs). */
  dueAt: z.string().optional(),
  /** Until when a running attempt owns the job; past it, the attempt is presumed lost and the job re-run. */
  leaseUntil: z.string().optional(),
  createdAt: z.string(),
  updatedAt: z.string(),
  finishedAt: z.string().optional(),
});
export type DeletionJob = z.infer<typeof DeletionJob>;

export const DeletionJobView = z.object({
  destinationId: z.string(),
  destinationType: z.string(),
  status: z.enum(JOB_STATUSES),
  attempts: z.number().int(),
  lastError: z.string().optional(),
  reason: z.string().optional().describe('why a not_found or unsupported job ended'),
  nextAttemptAt: z.iso.datetime().optional(),
  createdAt: z.iso.datetime(),
  finishedAt: z.iso.datetime().optional(),
});

export const RegulationDetail = Regulation.extend({
  status: z.enum(['active', 'pending', 'running', 'completed', 'partially_completed', 'failed', 'canceled']),
  jobs: z.array(DeletionJobView).optional(),
});

export const RegulationPage = z.object({
  data: z.array(Regulation),
  paging: z.object({ next: z.string().optional().describe('/v2/regulations?after_cursor=<cursor>; absent on the last page') }),
});
