import * as z from 'zod';
import { adNetworkConfig, adNetworkTexts, type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const SnapchatConfig = z.strictObject({
  pixelId: z.string().min(1, 'pixelId is required'),
  accessToken: secret(z.string().min(1, 'accessToken is required')),
  ...adNetworkConfig(),
});
export type SnapchatConfig = z.output<typeof SnapchatConfig>;

/** Snapchat Conversions API as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const snapchatConversionsDefinition = defineDefinition({
  name: 'SNAPCHAT_CONVERSIONS',
  displayName: 'Snapchat Conversions API',
  config: SnapchatConfig,
  supportsTest: true,
  supportsDeletion: false,
});

/** What Snapchat Conversions API's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const snapchatConversionsFields: FieldTexts<typeof SnapchatConfig> = /* @__PURE__ */ adNetworkTexts(
  {
    pixelId: { label: 'Pixel ID', description: 'The Snap Pixel ID the web events belong to', example: 'a1b2c3d4-e5f6-7890-abcd-ef1234567890' },
    accessToken: { label: 'Conversions API Token', description: 'A Conversions API token of the pixel' },
  },
  'PURCHASE',
  'https://tr.snapchat.com',
);
