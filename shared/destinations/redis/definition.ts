import * as z from 'zod';
import { type FieldTexts, secret } from '../config-schema';
import { defineDefinition } from '../types';

export const RedisConfig = z.strictObject({
  address: z.string().regex(/^[^\s:]+:\d{1,5}$/, 'address must be host:port'),
  password: secret(z.string()).optional(),
  database: z.number().int().min(0).max(15).optional(),
  secure: z.boolean().optional(),
  prefix: z.string().max(100).optional(),
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

/** What Redis's form shows of each configuration field (GET /destination-definitions); the schema checks the values. */
export const redisFields: FieldTexts<typeof RedisConfig> = {
  address: { label: 'Address', description: "The server's host:port", example: 'redis.example.com:6379' },
  password: { label: 'Password', description: "The server's password" },
  database: { label: 'Database', description: 'The database number, 0–15; 0 when not set', example: 0 },
  secure: { label: 'TLS', description: 'Connects over TLS, the certificate checked for the host' },
  prefix: { label: 'Key prefix', description: 'Prepended to every key', example: 'weir:' },
};
