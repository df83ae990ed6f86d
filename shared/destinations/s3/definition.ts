import * as z from 'zod';
import { CredentialName } from '../config-schema';
import { defineDefinition } from '../types';

export const S3Config = z.strictObject({
  bucketName: z.string().min(3).max(63),
  region: z
    .string()
    .regex(/^[a-z0-9-]+$/, 'region must be an AWS region name such as eu-west-1')
    .optional()
    .describe('the bucket region (default us-east-1)'),
  prefix: z.string().max(512).optional().describe('the folder objects are written under'),
  accessKeyIdCredential: CredentialName.optional().describe('the workspace credential that holds the access key id'),
  secretAccessKeyCredential: CredentialName.optional().describe('the workspace credential that holds the secret access key'),
  endPoint: z
    .url({ protocol: /^https?$/ })
    .optional()
    .describe('an S3-compatible store instead of AWS (addressed path-style)'),
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
