import * as z from 'zod';
import { baseUrl, EventMap, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

// Server Event Parameters, action_source: where the conversion happened.
const ACTION_SOURCES = ['website', 'app', 'email', 'phone_call', 'chat', 'physical_store', 'system_generated', 'business_messaging', 'other'] as const;

export const FacebookConversionsConfig = z.strictObject({
  pixelId: z.string().min(1, 'pixelId is required').describe('the dataset (pixel) id the events belong to'),
  accessToken: secret(z.string().min(1, 'accessToken is required').describe('a Conversions API access token of the dataset')),
  apiVersion: z
    .string()
    .regex(/^v\d+\.\d+$/, 'apiVersion must look like v25.0')
    .optional()
    .describe('Graph API version, v25.0 unless given'),
  actionSource: z
    .enum(ACTION_SOURCES)
    .optional()
    .describe('where the conversions happen; unless given, website for events from a browser (page URL and user agent), other for the rest'),
  testEventCode: z.string().optional().describe('sends to the Test Events tool instead of counting the events'),
  eventMap: EventMap,
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('replaces https://graph.facebook.com (proxies, tests)'),
});
export type FacebookConversionsConfig = z.output<typeof FacebookConversionsConfig>;

/** Facebook Conversions API as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const facebookConversionsDefinition = defineDefinition({
  name: 'FACEBOOK_CONVERSIONS',
  displayName: 'Facebook Conversions API',
  config: FacebookConversionsConfig,
  supportsTest: true,
  supportsDeletion: false,
});
