import * as z from 'zod';

/**
 * A source's link to one tracking plan version, stored on the source (catalog) and read with its write key;
 * apart from the plan's other schemas so that every function reading sources does not carry them.
 */
export const MODES = ['observe', 'drop-event', 'omit-unplanned'] as const;
export type PlanMode = (typeof MODES)[number];

export const SourcePlan = z.strictObject({
  planId: z.string().min(1).max(64),
  version: z.number().int().min(1),
  mode: z.enum(MODES).default('observe'),
  unplannedEvents: z.enum(['allow', 'drop']).default('allow').describe('what happens to events the plan has no spec for'),
});
export type SourcePlan = z.infer<typeof SourcePlan>;
