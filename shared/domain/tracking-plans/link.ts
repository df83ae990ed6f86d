// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';

/**
 * A source's link to one tracking plan version, stored on the source (catalog) and read with its write key;
 * apart from the plan's other schemas so that every function reading sources does not carry them.
 */
export const MODES = ['observe', 'drop-event', 'omit-unplanned'] as const;
export type PlanMode = (typeof MODES)[number];

export const SourcePlan = z.strictObject({
  planId: z.string().check(z.minLength(1), z.maxLength(64)),
  version: z.number().check(z.int(), z.gte(1)),
  mode: z._default(z.enum(MODES), 'observe'),
  unplannedEvents: z._default(z.enum(['allow', 'drop']), 'allow').check(z.describe('what happens to events the plan has no spec for')),
});
export type SourcePlan = z.infer<typeof SourcePlan>;
