import * as z from 'zod';
import { field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const KafkaConfig = z.strictObject({
  hostname: field(z.string().regex(/^[\w.-]+$/, 'hostname must be a host name or an IPv4 address'), {
    label: 'Host',
    description: "The bootstrap broker's host name or IPv4 address",
    example: 'kafka.example.com',
  }),
  port: field(z.number().int().min(1).max(65535), { label: 'Port', description: "The bootstrap broker's port", example: 9093 }),
  topic: field(z.string().regex(/^[\w.-]{1,249}$/, 'topic must be 1-249 letters, digits, ".", "_" or "-"'), {
    label: 'Topic',
    description: 'Every event of the destination goes to this topic',
    example: 'weir-events',
  }),
  sslEnabled: field(z.boolean().optional(), { label: 'TLS', description: 'Connects over TLS' }),
  caCertificate: field(z.string().optional(), {
    label: 'CA certificate',
    description: "PEM certificate of the brokers' CA; the system trust store when absent",
    example: '-----BEGIN CERTIFICATE-----',
  }),
  useSASL: field(z.boolean().optional(), { label: 'SASL', description: 'Authenticates with SASL' }),
  saslType: field(z.enum(['plain', 'sha256', 'sha512']).optional(), { label: 'SASL mechanism', description: 'PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512' }),
  username: field(z.string().optional(), { label: 'Username', description: 'The SASL user' }),
  password: field(secret(z.string()).optional(), { label: 'Password', description: 'The SASL password' }),
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
