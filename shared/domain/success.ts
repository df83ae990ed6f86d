// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';

/** What a call that returns nothing else answers: `{ success: true }`. */
export const Success = z.object({ success: z.literal(true) });
