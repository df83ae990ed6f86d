import * as z from 'zod';
import { defineDestination } from '../types';

/**
 * Types the data plane's own server delivers (SPEC §4.C rule 9): registered so destinations of these types
 * can be created and connected now; the test interface refuses them, live delivery takes them over.
 */
export const s3 = defineDestination({
  name: 'S3',
  displayName: 'Amazon S3',
  delivery: 'server',
  config: z.strictObject({
    bucketName: z.string().min(3).max(63),
    region: z.string().min(1).optional(),
    prefix: z.string().optional(),
    accessKeyID: z.string().optional(),
    accessKey: z.string().optional(),
    endPoint: z.url().optional().describe('an S3-compatible store instead of AWS'),
  }),
});
