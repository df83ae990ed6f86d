import * as z from 'zod';
import { httpUrl } from '../config-schema';
import { defineDefinition } from '../types';

export const WebhookConfig = z.strictObject({
  webhookUrl: httpUrl('webhookUrl'),
  webhookMethod: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  headers: z
    .array(z.strictObject({ from: z.string(), to: z.string() }))
    .optional()
    .describe('static headers, {from: name, to: value}; names are lower-cased'),
});
export type WebhookConfig = z.output<typeof WebhookConfig>;

/** Webhook as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const webhookDefinition = defineDefinition({
  name: 'WEBHOOK',
  displayName: 'Webhook',
  config: WebhookConfig,
  supportsTest: true,
  supportsDeletion: false,
});
