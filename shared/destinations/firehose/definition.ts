import * as z from 'zod';
import { CredentialName, type FieldTexts } from '../config-schema';
import { defineDefinition } from '../types';

export const FirehoseConfig = z.strictObject({
  deliveryStreamName: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, 'deliveryStreamName must be 1-64 letters, digits, "_", "." or "-"'),
  region: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'region must be an AWS region name such as eu-west-1')
    .optional(),
  accessKeyIdCredential: CredentialName,
  secretAccessKeyCredential: CredentialName,
  endPoint: z.url({ protocol: /^https?$/ }).optional(),
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

/** What Amazon Kinesis Data Firehose's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const firehoseFields: FieldTexts<typeof FirehoseConfig> = {
  deliveryStreamName: { label: 'Delivery stream', description: 'The delivery stream (1–64 letters, digits, _, . or -)', example: 'weir-events' },
  region: { label: 'Region', description: "The stream's region; us-east-1 when not set", example: 'eu-west-1' },
  accessKeyIdCredential: {
    label: 'Access key ID credential',
    description: 'The workspace credential that holds the access key ID',
    example: 'AWS_ACCESS_KEY_ID',
  },
  secretAccessKeyCredential: {
    label: 'Secret access key credential',
    description: 'The workspace credential that holds the secret access key',
    example: 'AWS_SECRET_ACCESS_KEY',
  },
  endPoint: { label: 'Endpoint', description: 'A Firehose-compatible endpoint instead of AWS', example: 'https://firehose.example.com' },
};
