import * as z from 'zod';
import { httpUrl, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SlackConfig = z.strictObject({
  webhookUrl: secret(httpUrl('webhookUrl')),
  username: z.string().optional().describe('name the message is posted under'),
  iconUrl: httpUrl('iconUrl').optional().describe('icon the message is posted with'),
  eventTemplate: z.string().optional().describe('text of track messages, with {{name}}, {{user}}, {{properties.x}}, {{traits.x}} placeholders'),
  identifyTemplate: z.string().optional().describe('text of identify messages, with {{user}}, {{traits.x}} placeholders'),
  whitelistedEvents: z.array(z.string()).optional().describe('track events to post; others are refused; all when not set or empty'),
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
