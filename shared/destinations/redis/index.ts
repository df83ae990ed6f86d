import { flatten, traitsOf, userIdOf } from '../message';
import { defineDestinationCode, type DeliveryResult } from '../types';
import { withRedis } from './connection';
import type { redisDefinition } from './definition';

/** Keys per DEL, so a large job never becomes one huge command. */
const KEYS_PER_DEL = 500;

/**
 * Redis: delivered by the data plane's own server (SPEC §4.C rule 9), not through HTTP. A user's traits live
 * in the hash `<prefix>user:<userId>`; user deletion removes that hash, as the reference's Redis deleter does
 * (`DEL user:<userId>`), and nothing else.
 */
export const redis = defineDestinationCode<typeof redisDefinition>({
  delivery: 'server',
  async deleteUsers(users, config) {
    const keys = users.map((user) => `${config.prefix ?? ''}user:${user.userId}`);
    const done = await withRedis(config, async (client) => {
      for (let i = 0; i < keys.length; i += KEYS_PER_DEL) await client.del(...keys.slice(i, i + KEYS_PER_DEL));
    });
    return done.ok ? { status: 'completed' } : { status: 'failed', error: done.error, retryable: done.retryable };
  },
  /**
   * Live delivery: an identify's traits become the fields of the hash `<prefix>user:<userId>` (nested values
   * flattened to dotted fields, as text), the layout the deleter removes. Other types carry no traits to keep.
   */
  async deliver(message, config): Promise<DeliveryResult> {
    if (message.type !== 'identify') return { status: 204, response: { stored: false, reason: 'only identify events are stored in Redis' }, retryable: false };
    const userId = userIdOf(message);
    if (!userId) return { status: 400, response: '', error: 'an identify needs a userId to be stored in Redis', retryable: false };
    const fields = flatten(traitsOf(message));
    const key = `${config.prefix ?? ''}user:${userId}`;
    if (Object.keys(fields).length === 0) return { status: 204, response: { stored: false, key, reason: 'no traits' }, retryable: false };
    const done = await withRedis(config, (client) => client.hset(key, fields));
    return done.ok
      ? { status: 200, response: { stored: true, key, fields: Object.keys(fields).length }, retryable: false }
      : { status: done.retryable ? 503 : 400, response: '', error: done.error, retryable: done.retryable };
  },
});
