import * as z from 'zod';
import { field, httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';
import { US_CLOUD } from './endpoints';

export const PostHogConfig = z.strictObject({
  teamApiKey: field(secret(z.string().min(1, 'teamApiKey is required')), { label: 'Project API Key', description: 'The project API key (phc_...)' }),
  yourInstance: field(httpUrl('yourInstance').optional(), {
    label: 'PostHog instance',
    description: `The ingestion host: ${US_CLOUD} (default), https://eu.i.posthog.com or a self-hosted URL`,
    example: 'https://eu.i.posthog.com',
  }),
  personalApiKey: field(secret(z.string()).optional(), {
    label: 'Personal API Key',
    description: 'A personal API key with person:read and person:write; needed to delete users',
  }),
  projectId: field(z.string().optional(), {
    label: 'Project ID',
    description: 'The project whose persons are deleted; needed to delete users',
    example: '12345',
  }),
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
