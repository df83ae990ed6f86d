import * as z from 'zod';
import { baseUrl, eventMap, field, PhoneCountryCode, secret } from '../config-schema';
import { defineDefinition } from '../types';

// Server Event Parameters, action_source: where the conversion happened.
const ACTION_SOURCES = ['website', 'app', 'email', 'phone_call', 'chat', 'physical_store', 'system_generated', 'business_messaging', 'other'] as const;

export const FacebookConversionsConfig = z.strictObject({
  pixelId: field(z.string().min(1, 'pixelId is required'), {
    label: 'Dataset ID',
    description: 'The dataset (pixel) ID the events belong to',
    example: '123456789012345',
  }),
  accessToken: field(secret(z.string().min(1, 'accessToken is required')), {
    label: 'Access Token',
    description: 'A Conversions API access token of the dataset',
  }),
  apiVersion: field(
    z
      .string()
      .regex(/^v\d+\.\d+$/, 'apiVersion must look like v25.0')
      .optional(),
    {
      label: 'Graph API version',
      description: 'The Graph API version; v25.0 unless given',
      example: 'v25.0',
    },
  ),
  actionSource: field(z.enum(ACTION_SOURCES).optional(), {
    label: 'Action source',
    description: 'Where the conversions happen; unless given, website for events from a browser (page URL and user agent), other for the rest',
  }),
  testEventCode: field(z.string().optional(), {
    label: 'Test event code',
    description: 'Sends to the Test Events tool instead of counting the events',
    example: 'TEST12345',
  }),
  eventMap: eventMap('Purchase'),
  phoneCountryCode: PhoneCountryCode,
  baseUrl: baseUrl('Replaces https://graph.facebook.com (proxies, tests)'),
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
