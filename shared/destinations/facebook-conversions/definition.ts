import * as z from 'zod';
import { adNetworkConfig, adNetworkTexts, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

// Server Event Parameters, action_source: where the conversion happened.
const ACTION_SOURCES = ['website', 'app', 'email', 'phone_call', 'chat', 'physical_store', 'system_generated', 'business_messaging', 'other'] as const;

export const FacebookConversionsConfig = z.strictObject({
  pixelId: z.string().min(1, 'pixelId is required'),
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  apiVersion: z
    .string()
    .regex(/^v\d+\.\d+$/, 'apiVersion must look like v25.0')
    .optional(),
  actionSource: z.enum(ACTION_SOURCES).optional(),
  testEventCode: z.string().optional(),
  ...adNetworkConfig(),
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

/** What Facebook Conversions API's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const facebookConversionsFields: FieldTexts<typeof FacebookConversionsConfig> = /* @__PURE__ */ adNetworkTexts(
  {
    pixelId: { label: 'Dataset ID', description: 'The dataset (pixel) ID the events belong to', example: '123456789012345' },
    accessToken: { label: 'Access Token', description: 'A Conversions API access token of the dataset' },
    apiVersion: { label: 'Graph API version', description: 'The Graph API version; v25.0 unless given', example: 'v25.0' },
    actionSource: {
      label: 'Action source',
      description: 'Where the conversions happen; unless given, website for events from a browser (page URL and user agent), other for the rest',
    },
    testEventCode: { label: 'Test event code', description: 'Sends to the Test Events tool instead of counting the events', example: 'TEST12345' },
  },
  'Purchase',
  'https://graph.facebook.com',
);
