import * as z from 'zod';
import { secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PostgresConfig = z.strictObject({
  host: z.string().regex(/^[\w.-]+$/, 'host must be a host name or IPv4 address'),
  port: z.number().int().min(1).max(65535).optional().describe('default 5432'),
  database: z.string().min(1).max(63),
  user: z.string().min(1).max(63),
  password: secret(z.string()).optional(),
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'schema must be a lower-case identifier (letters, digits and _)')
    .optional()
    .describe('where the tables are made (default public)'),
  sslMode: z.enum(['disable', 'require', 'verify-full']).optional().describe('default disable'),
  caCertificate: z.string().optional().describe('PEM certificate of the server’s CA, for verify-full'),
});
export type PostgresConfig = z.output<typeof PostgresConfig>;

/** PostgreSQL as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const postgresDefinition = defineDefinition({
  name: 'POSTGRES',
  displayName: 'PostgreSQL',
  config: PostgresConfig,
  supportsTest: true,
  supportsDeletion: true,
});
