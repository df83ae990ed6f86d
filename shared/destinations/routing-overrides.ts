import { isRecord } from './message';
import type { Message } from './types';

/**
 * The fields of an event that would choose where a destination sends it or which headers go with it: the
 * webhook's `fullPath`, `appendPath` and `header`, at the top of the event or under `integrations.<type>`.
 * A write key is public, so an event as its sender wrote it may never set them: only the workspace's own
 * transformation may. Live delivery (user-transform.ts) and the test interface take them out of every event
 * before its rules and its transformation run; whatever the transformation's output carries is the workspace's
 * choice, held to the destination's origin and configured headers by the type itself (webhook/index.ts).
 */
const ROUTING_FIELDS: readonly string[] = ['fullPath', 'appendPath', 'header'];

const carriesRouting = (value: Record<string, unknown>) => ROUTING_FIELDS.some((key) => Object.hasOwn(value, key));

/** The event without its routing fields (the same object when it has none; the event given is never changed). */
export function withoutRoutingFields(event: Message): Message {
  const integrations = isRecord(event.integrations) ? event.integrations : undefined;
  const routedIntegrations = integrations && Object.keys(integrations).filter((name) => isRecord(integrations[name]) && carriesRouting(integrations[name]));
  if (!carriesRouting(event) && !routedIntegrations?.length) return event;
  const copy: Message = { ...event };
  for (const key of ROUTING_FIELDS) delete copy[key];
  if (integrations && routedIntegrations?.length) {
    const cleaned: Record<string, unknown> = { ...integrations };
    for (const name of routedIntegrations) {
      const options: Record<string, unknown> = { ...(integrations[name] as Record<string, unknown>) };
      for (const key of ROUTING_FIELDS) delete options[key];
      cleaned[name] = options;
    }
    copy.integrations = cleaned;
  }
  return copy;
}
