import * as z from 'zod';
import { field, httpUrl, pairs } from '../config-schema';
import { defineDefinition } from '../types';

export const WebhookConfig = z.strictObject({
  webhookUrl: field(httpUrl('webhookUrl'), {
    label: 'Webhook URL',
    description: 'Where events are sent (http or https)',
    example: 'https://example.com/weir/events',
  }),
  webhookMethod: field(z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']).optional(), {
    label: 'HTTP method',
    description: 'The method of each request; POST when not set',
  }),
  headers: field(pairs({ label: 'Header name', example: 'x-api-key' }, { label: 'Value', example: 'my-key' }).optional(), {
    label: 'Headers',
    description: 'Static headers added to each request; names are lower-cased',
  }),
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
