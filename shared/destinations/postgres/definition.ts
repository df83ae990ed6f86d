import * as z from 'zod';
import { type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PostgresConfig = z.strictObject({
  host: z.string().regex(/^[\w.-]+$/, 'host must be a host name or IPv4 address'),
  port: z.number().int().min(1).max(65535).optional(),
  database: z.string().min(1).max(63),
  user: z.string().min(1).max(63),
  password: secret(z.string()).optional(),
  schema: z
    .string()
    .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'schema must be a lower-case identifier (letters, digits and _)')
    .optional(),
  sslMode: z.enum(['disable', 'require', 'verify-full']).optional(),
  caCertificate: z.string().optional(),
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

/** What PostgreSQL's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const postgresFields: FieldTexts<typeof PostgresConfig> = {
  host: { label: 'Host', description: "The server's host name or IPv4 address", example: 'db.example.com' },
  port: { label: 'Port', description: "The server's port; 5432 when not set", example: 5432 },
  database: { label: 'Database', description: 'The database', example: 'analytics' },
  user: { label: 'User', description: 'The login', example: 'weir' },
  password: { label: 'Password', description: "The login's password" },
  schema: { label: 'Schema', description: 'Where the tables are made; public when not set', example: 'events' },
  sslMode: { label: 'SSL mode', description: 'disable (the default), require (TLS), or verify-full (TLS, the certificate checked)' },
  caCertificate: { label: 'CA certificate', description: 'PEM certificate of the server’s CA, for verify-full', example: '-----BEGIN CERTIFICATE-----' },
};
