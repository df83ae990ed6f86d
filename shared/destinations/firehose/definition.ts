import * as z from 'zod';
import { CredentialName } from '../config-schema';
import { defineDefinition } from '../types';

export const FirehoseConfig = z.strictObject({
  deliveryStreamName: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, 'deliveryStreamName must be 1-64 letters, digits, "_", "." or "-"'),
  region: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'region must be an AWS region name such as eu-west-1')
    .optional()
    .describe('the stream region (default us-east-1)'),
  accessKeyIdCredential: CredentialName.describe('the workspace credential that holds the access key id'),
  secretAccessKeyCredential: CredentialName.describe('the workspace credential that holds the secret access key'),
  endPoint: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('a Firehose-compatible endpoint instead of AWS'),
});
export type FirehoseConfig = z.output<typeof FirehoseConfig>;

/** Amazon Kinesis Data Firehose as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const firehoseDefinition = defineDefinition({
  name: 'FIREHOSE',
  displayName: 'Amazon Kinesis Data Firehose',
  config: FirehoseConfig,
  supportsTest: false,
  supportsDeletion: false,
});
