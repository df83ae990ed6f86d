import * as z from 'zod';
import { type FieldTexts, httpUrl } from '../config-schema';
import { defineDefinition } from '../types';

export const WebhookConfig = z.strictObject({
  webhookUrl: httpUrl('webhookUrl'),
  webhookMethod: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(),
  headers: z.array(z.strictObject({ from: z.string(), to: z.string() })).optional(),
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

/** What Webhook's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const webhookFields: FieldTexts<typeof WebhookConfig> = {
  webhookUrl: { label: 'Webhook URL', description: 'Where events are sent (http or https)', example: 'https://example.com/weir/events' },
  webhookMethod: { label: 'HTTP method', description: 'The method of each request; POST when not set' },
  headers: {
    label: 'Headers',
    description: 'Static headers added to each request; names are lower-cased',
    columns: { from: { label: 'Header name', example: 'x-api-key' }, to: { label: 'Value', example: 'my-key' } },
  },
};
