import * as z from 'zod';
import { type FieldTexts, httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PostHogConfig = z.strictObject({
  teamApiKey: secret(z.string().min(1, 'teamApiKey is required')),
  yourInstance: httpUrl('yourInstance').optional(),
  personalApiKey: secret(z.string()).optional(),
  projectId: z.string().optional(),
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

/** What PostHog's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const posthogFields: FieldTexts<typeof PostHogConfig> = {
  teamApiKey: { label: 'Project API Key', description: 'The project API key (phc_...)' },
  yourInstance: {
    label: 'PostHog instance',
    description: 'The ingestion host: https://us.i.posthog.com (default), https://eu.i.posthog.com or a self-hosted URL',
    example: 'https://eu.i.posthog.com',
  },
  personalApiKey: { label: 'Personal API Key', description: 'A personal API key with person:read and person:write; needed to delete users' },
  projectId: { label: 'Project ID', description: 'The project whose persons are deleted; needed to delete users', example: '12345' },
};
