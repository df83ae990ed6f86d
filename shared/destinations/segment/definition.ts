import * as z from 'zod';
import { BASE_URL_LABEL, baseUrl, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SegmentConfig = z.strictObject({
  writeKey: secret(z.string().min(1, 'writeKey is required')),
  region: z.enum(['US', 'EU']).optional(),
  publicApiToken: secret(z.string()).optional(),
  baseUrl: baseUrl(),
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

/** What Segment's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const segmentFields: FieldTexts<typeof SegmentConfig> = {
  writeKey: { label: 'Write Key', description: 'The write key of the Segment source events go to' },
  region: { label: 'Region', description: "The workspace's region; US when not set" },
  publicApiToken: { label: 'Public API token', description: 'A Public API token; needed to delete users' },
  baseUrl: { label: BASE_URL_LABEL, description: 'Replaces both the tracking and the Public API host (proxies, tests)' },
};
