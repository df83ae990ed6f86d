import * as z from 'zod';
import { field, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const RedisConfig = z.strictObject({
  address: field(z.string().regex(/^[^\s:]+:\d{1,5}$/, 'address must be host:port'), {
    label: 'Address',
    description: "The server's host:port",
    example: 'redis.example.com:6379',
  }),
  password: field(secret(z.string()).optional(), { label: 'Password', description: "The server's password" }),
  database: field(z.number().int().min(0).max(15).optional(), { label: 'Database', description: 'The database number, 0–15; 0 when not set', example: 0 }),
  secure: field(z.boolean().optional(), { label: 'TLS', description: 'Connects over TLS, the certificate checked for the host' }),
  prefix: field(z.string().max(100).optional(), { label: 'Key prefix', description: 'Prepended to every key', example: 'weir:' }),
});
export type RedisConfig = z.output<typeof RedisConfig>;

/** Redis as GET /destination-definitions lists it and the catalog checks its configurations; its code: index.ts. */
export const redisDefinition = defineDefinition({
  name: 'REDIS',
  displayName: 'Redis',
  config: RedisConfig,
  supportsTest: false,
  supportsDeletion: true,
});
