import * as z from 'zod';
import { ACCESS_KEY_ID_CREDENTIAL_TEXT, AwsEndpoint, AwsRegion, CredentialName, type FieldTexts, SECRET_ACCESS_KEY_CREDENTIAL_TEXT } from '../config-schema';
import { defineDefinition } from '../types';

export const FirehoseConfig = z.strictObject({
  deliveryStreamName: z.string().regex(/^[a-zA-Z0-9_.-]{1,64}$/, 'deliveryStreamName must be 1-64 letters, digits, "_", "." or "-"'),
  region: AwsRegion,
  accessKeyIdCredential: CredentialName,
  secretAccessKeyCredential: CredentialName,
  endPoint: AwsEndpoint,
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
  accessKeyIdCredential: ACCESS_KEY_ID_CREDENTIAL_TEXT,
  secretAccessKeyCredential: SECRET_ACCESS_KEY_CREDENTIAL_TEXT,
  endPoint: { label: 'Endpoint', description: 'A Firehose-compatible endpoint instead of AWS', example: 'https://firehose.example.com' },
};
