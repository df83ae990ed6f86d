import * as z from 'zod';
import { baseUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SegmentConfig = z.strictObject({
  writeKey: secret(z.string().min(1, 'writeKey is required').describe('the write key of the Segment source events go to')),
  region: z.enum(['US', 'EU']).optional().describe("the workspace's region; US when not set"),
  publicApiToken: secret(z.string()).optional().describe('a Public API token; needed to delete users'),
  baseUrl: baseUrl('replaces both the tracking and the Public API host (proxies, tests)'),
});
export type SegmentConfig = z.output<typeof SegmentConfig>;

/** Segment as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const segmentDefinition = defineDefinition({
  name: 'SEGMENT',
  displayName: 'Segment',
  config: SegmentConfig,
  supportsTest: true,
  supportsDeletion: true,
});
