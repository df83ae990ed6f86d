import { normaliseUserId } from './regulations/suppression-index';

/**
 * A user's key, as ordering sees it (a user's events go in the order they came, at every stage): the userId,
 * else the anonymousId, else the event's own messageId (an event of nobody is its own user).
 */
export function userKeyOf(event: { userId?: unknown; anonymousId?: unknown; messageId?: unknown }): string {
  const user = normaliseUserId(event.userId);
  if (user !== undefined) return `u:${user}`;
  const anonymous = normaliseUserId(event.anonymousId);
  return anonymous !== undefined ? `a:${anonymous}` : `m:${String(event.messageId)}`;
}
