import * as z from 'zod';
import { field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const PostgresConfig = z.strictObject({
  host: field(z.string().regex(/^[\w.-]+$/, 'host must be a host name or IPv4 address'), {
    label: 'Host',
    description: "The server's host name or IPv4 address",
    example: 'db.example.com',
  }),
  port: field(z.number().int().min(1).max(65535).optional(), { label: 'Port', description: "The server's port; 5432 when not set", example: 5432 }),
  database: field(z.string().min(1).max(63), { label: 'Database', description: 'The database', example: 'analytics' }),
  user: field(z.string().min(1).max(63), { label: 'User', description: 'The login', example: 'weir' }),
  password: field(secret(z.string()).optional(), { label: 'Password', description: "The login's password" }),
  schema: field(
    z
      .string()
      .regex(/^[a-z_][a-z0-9_]{0,62}$/, 'schema must be a lower-case identifier (letters, digits and _)')
      .optional(),
    {
      label: 'Schema',
      description: 'Where the tables are made; public when not set',
      example: 'events',
    },
  ),
  sslMode: field(z.enum(['disable', 'require', 'verify-full']).optional(), {
    label: 'SSL mode',
    description: 'disable (the default), require (TLS), or verify-full (TLS, the certificate checked)',
  }),
  caCertificate: field(z.string().optional(), {
    label: 'CA certificate',
    description: 'PEM certificate of the server’s CA, for verify-full',
    example: '-----BEGIN CERTIFICATE-----',
  }),
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
