import * as z from 'zod';
import { type FieldTexts, httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SlackConfig = z.strictObject({
  webhookUrl: secret(httpUrl('webhookUrl')),
  username: z.string().optional(),
  iconUrl: httpUrl('iconUrl').optional(),
  eventTemplate: z.string().optional(),
  identifyTemplate: z.string().optional(),
  whitelistedEvents: z.array(z.string()).optional(),
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

/** What Slack's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const slackFields: FieldTexts<typeof SlackConfig> = {
  webhookUrl: {
    label: 'Webhook URL',
    description: "The incoming webhook's URL",
    example: 'https://hooks.slack.com/services/…',
  },
  username: { label: 'Username', description: 'The name the message is posted under', example: 'Weir' },
  iconUrl: { label: 'Icon URL', description: 'The icon the message is posted with', example: 'https://example.com/icon.png' },
  eventTemplate: {
    label: 'Event template',
    description: 'Text of track messages, with {{name}}, {{user}}, {{properties.x}}, {{traits.x}} placeholders',
    example: '{{user}} did {{name}}',
  },
  identifyTemplate: {
    label: 'Identify template',
    description: 'Text of identify messages, with {{user}}, {{traits.x}} placeholders',
    example: 'Identified {{user}} ({{traits.email}})',
  },
  whitelistedEvents: { label: 'Events to post', description: 'Track events to post; others are refused; all when none is listed', example: 'Order Completed' },
};
