import * as z from 'zod';
import { secret } from '../config-schema';
import { defineDefinition } from '../types';

export const KafkaConfig = z.strictObject({
  hostname: z.string().regex(/^[\w.-]+$/, 'hostname must be a host name or an IPv4 address'),
  port: z.number().int().min(1).max(65535),
  topic: z
    .string()
    .regex(/^[\w.-]{1,249}$/, 'topic must be 1-249 letters, digits, ".", "_" or "-"')
    .describe('every event of the destination goes to this topic'),
  sslEnabled: z.boolean().optional(),
  caCertificate: z.string().optional().describe('PEM; the system trust store when absent'),
  useSASL: z.boolean().optional(),
  saslType: z.enum(['plain', 'sha256', 'sha512']).optional().describe('PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512'),
  username: z.string().optional(),
  password: secret(z.string()).optional(),
});
export type KafkaConfig = z.output<typeof KafkaConfig>;

/** Apache Kafka as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const kafkaDefinition = defineDefinition({
  name: 'KAFKA',
  displayName: 'Apache Kafka',
  config: KafkaConfig,
  supportsTest: false,
  supportsDeletion: false,
});
