import * as z from 'zod';
import { field, httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SlackConfig = z.strictObject({
  webhookUrl: field(secret(httpUrl('webhookUrl')), {
    label: 'Webhook URL',
    description: "The incoming webhook's URL",
    example: 'https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX',
  }),
  username: field(z.string().optional(), { label: 'Username', description: 'The name the message is posted under', example: 'Weir' }),
  iconUrl: field(httpUrl('iconUrl').optional(), {
    label: 'Icon URL',
    description: 'The icon the message is posted with',
    example: 'https://example.com/icon.png',
  }),
  eventTemplate: field(z.string().optional(), {
    label: 'Event template',
    description: 'Text of track messages, with {{name}}, {{user}}, {{properties.x}}, {{traits.x}} placeholders',
    example: '{{user}} did {{name}}',
  }),
  identifyTemplate: field(z.string().optional(), {
    label: 'Identify template',
    description: 'Text of identify messages, with {{user}}, {{traits.x}} placeholders',
    example: 'Identified {{user}} ({{traits.email}})',
  }),
  whitelistedEvents: field(z.array(z.string()).optional(), {
    label: 'Events to post',
    description: 'Track events to post; others are refused; all when none is listed',
    example: 'Order Completed',
  }),
});
export type SlackConfig = z.output<typeof SlackConfig>;

/** Slack as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const slackDefinition = defineDefinition({
  name: 'SLACK',
  displayName: 'Slack',
  config: SlackConfig,
  supportsTest: true,
  supportsDeletion: false,
});
