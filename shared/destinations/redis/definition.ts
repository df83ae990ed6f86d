import * as z from 'zod';
import { secret } from '../config-schema';
import { defineDefinition } from '../types';

export const RedisConfig = z.strictObject({
  address: z.string().regex(/^[^\s:]+:\d{1,5}$/, 'address must be host:port'),
  password: secret(z.string()).optional(),
  database: z.number().int().min(0).max(15).optional(),
  secure: z.boolean().optional(),
  prefix: z.string().max(100).optional().describe('prepended to every key'),
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
