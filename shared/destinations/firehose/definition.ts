import * as z from 'zod';
import { CredentialName, field } from '../config-schema';
import { defineDefinition } from '../types';

export const FirehoseConfig = z.strictObject({
  deliveryStreamName: field(z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, 'deliveryStreamName must be 1-64 letters, digits, "_", "." or "-"'), {
    label: 'Delivery stream',
    description: 'The delivery stream (1–64 letters, digits, _, . or -)',
    example: 'weir-events',
  }),
  region: field(
    z
      .string()
      .regex(/^[a-z0-9-]+$/, 'region must be an AWS region name such as eu-west-1')
      .optional(),
    {
      label: 'Region',
      description: "The stream's region; us-east-1 when not set",
      example: 'eu-west-1',
    },
  ),
  accessKeyIdCredential: field(CredentialName, {
    label: 'Access key ID credential',
    description: 'The workspace credential that holds the access key ID',
    example: 'AWS_ACCESS_KEY_ID',
  }),
  secretAccessKeyCredential: field(CredentialName, {
    label: 'Secret access key credential',
    description: 'The workspace credential that holds the secret access key',
    example: 'AWS_SECRET_ACCESS_KEY',
  }),
  endPoint: field(z.url({ protocol: /^https?$/ }).optional(), {
    label: 'Endpoint',
    description: 'A Firehose-compatible endpoint instead of AWS',
    example: 'https://firehose.example.com',
  }),
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
