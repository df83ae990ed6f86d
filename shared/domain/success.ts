import * as z from 'zod';

/** What a call that returns nothing else answers: `{ success: true }`. */
export const Success = z.object({ success: z.literal(true) });
