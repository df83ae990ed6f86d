import * as z from 'zod';
import { baseUrl, field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SegmentConfig = z.strictObject({
  writeKey: field(secret(z.string().min(1, 'writeKey is required')), { label: 'Write Key', description: 'The write key of the Segment source events go to' }),
  region: field(z.enum(['US', 'EU']).optional(), { label: 'Region', description: "The workspace's region; US when not set" }),
  publicApiToken: field(secret(z.string()).optional(), { label: 'Public API token', description: 'A Public API token; needed to delete users' }),
  baseUrl: baseUrl('Replaces both the tracking and the Public API host (proxies, tests)'),
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
