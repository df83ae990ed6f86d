import * as z from 'zod';
import { defineDestination } from '../types';

export const kafka = defineDestination({
  name: 'KAFKA',
  displayName: 'Apache Kafka',
  delivery: 'server',
  config: z.strictObject({
    hostname: z.string().min(1),
    port: z.number().int().min(1).max(65535),
    topic: z.string().min(1),
    sslEnabled: z.boolean().optional(),
    caCertificate: z.string().optional(),
    useSASL: z.boolean().optional(),
    saslType: z.enum(['plain', 'sha256', 'sha512']).optional(),
    username: z.string().optional(),
    password: z.string().optional(),
  }),
});
