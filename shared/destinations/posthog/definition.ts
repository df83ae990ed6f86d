import * as z from 'zod';
import { httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';
import { US_CLOUD } from './endpoints';

export const PostHogConfig = z.strictObject({
  teamApiKey: secret(z.string().min(1, 'teamApiKey is required')),
  yourInstance: httpUrl('yourInstance').optional().describe(`the ingestion host: ${US_CLOUD} (default), https://eu.i.posthog.com or a self-hosted URL`),
  personalApiKey: secret(z.string()).optional().describe('personal API key with person:read and person:write; needed to delete users'),
  projectId: z.string().optional().describe('the project whose persons are deleted; needed to delete users'),
});
export type PostHogConfig = z.output<typeof PostHogConfig>;

/** PostHog as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const posthogDefinition = defineDefinition({
  name: 'POSTHOG',
  displayName: 'PostHog',
  config: PostHogConfig,
  supportsTest: true,
  supportsDeletion: true,
});
