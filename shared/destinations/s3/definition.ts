import * as z from 'zod';
import { ACCESS_KEY_ID_CREDENTIAL_TEXT, AwsEndpoint, AwsRegion, CredentialName, type FieldTexts, SECRET_ACCESS_KEY_CREDENTIAL_TEXT } from '../config-schema';
import { defineDefinition } from '../types';

export const S3Config = z.strictObject({
  bucketName: z.string().min(3).max(63),
  region: AwsRegion,
  prefix: z.string().max(512).optional(),
  accessKeyIdCredential: CredentialName.optional(),
  secretAccessKeyCredential: CredentialName.optional(),
  endPoint: AwsEndpoint,
});
export type S3Config = z.output<typeof S3Config>;

/** Amazon S3 as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const s3Definition = defineDefinition({
  name: 'S3',
  displayName: 'Amazon S3',
  config: S3Config,
  supportsTest: false,
  supportsDeletion: false,
});

/** What Amazon S3's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const s3Fields: FieldTexts<typeof S3Config> = {
  bucketName: { label: 'Bucket', description: 'The bucket (3–63 characters)', example: 'my-events' },
  region: { label: 'Region', description: "The bucket's region; us-east-1 when not set", example: 'eu-west-1' },
  prefix: { label: 'Prefix', description: 'The folder objects are written under', example: 'weir/events' },
  accessKeyIdCredential: ACCESS_KEY_ID_CREDENTIAL_TEXT,
  secretAccessKeyCredential: SECRET_ACCESS_KEY_CREDENTIAL_TEXT,
  endPoint: { label: 'Endpoint', description: 'An S3-compatible store instead of AWS (addressed path-style)', example: 'https://s3.example.com' },
};
