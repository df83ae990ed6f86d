import * as z from 'zod';
import { type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const KafkaConfig = z.strictObject({
  hostname: z.string().regex(/^[\w.-]+$/, 'hostname must be a host name or an IPv4 address'),
  port: z.number().int().min(1).max(65535),
  topic: z.string().regex(/^[\w.-]{1,249}$/, 'topic must be 1-249 letters, digits, ".", "_" or "-"'),
  sslEnabled: z.boolean().optional(),
  caCertificate: z.string().optional(),
  useSASL: z.boolean().optional(),
  saslType: z.enum(['plain', 'sha256', 'sha512']).optional(),
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

/** What Apache Kafka's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const kafkaFields: FieldTexts<typeof KafkaConfig> = {
  hostname: { label: 'Host', description: "The bootstrap broker's host name or IPv4 address", example: 'kafka.example.com' },
  port: { label: 'Port', description: "The bootstrap broker's port", example: 9093 },
  topic: { label: 'Topic', description: 'Every event of the destination goes to this topic', example: 'weir-events' },
  sslEnabled: { label: 'TLS', description: 'Connects over TLS' },
  caCertificate: {
    label: 'CA certificate',
    description: "PEM certificate of the brokers' CA; the system trust store when absent",
    example: '-----BEGIN CERTIFICATE-----',
  },
  useSASL: { label: 'SASL', description: 'Authenticates with SASL' },
  saslType: { label: 'SASL mechanism', description: 'PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512' },
  username: { label: 'Username', description: 'The SASL user' },
  password: { label: 'Password', description: 'The SASL password' },
};
