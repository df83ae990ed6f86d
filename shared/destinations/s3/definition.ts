import * as z from 'zod';
import { CredentialName, field } from '../config-schema';
import { defineDefinition } from '../types';

export const S3Config = z.strictObject({
  bucketName: field(z.string().min(3).max(63), { label: 'Bucket', description: 'The bucket (3–63 characters)', example: 'my-events' }),
  region: field(
    z
      .string()
      .regex(/^[a-z0-9-]+$/, 'region must be an AWS region name such as eu-west-1')
      .optional(),
    {
      label: 'Region',
      description: "The bucket's region; us-east-1 when not set",
      example: 'eu-west-1',
    },
  ),
  prefix: field(z.string().max(512).optional(), { label: 'Prefix', description: 'The folder objects are written under', example: 'weir/events' }),
  accessKeyIdCredential: field(CredentialName.optional(), {
    label: 'Access key ID credential',
    description: 'The workspace credential that holds the access key ID',
    example: 'AWS_ACCESS_KEY_ID',
  }),
  secretAccessKeyCredential: field(CredentialName.optional(), {
    label: 'Secret access key credential',
    description: 'The workspace credential that holds the secret access key',
    example: 'AWS_SECRET_ACCESS_KEY',
  }),
  endPoint: field(z.url({ protocol: /^https?$/ }).optional(), {
    label: 'Endpoint',
    description: 'An S3-compatible store instead of AWS (addressed path-style)',
    example: 'https://s3.example.com',
  }),
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
