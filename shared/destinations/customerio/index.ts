import { deleteEachUser, deletionOutcome } from '../deletion';
import { instrumentationError } from '../errors';
import { anonymousIdOf, eventTime, firstOf, get, idText, isRecord, propertiesOf, traitsOf, trimBase, userIdOf } from '../message';
import { restRequest } from '../request';
import { defineDestinationCode, type ChunkEventVerdict, type DestinationRequest, type Message } from '../types';
import { ulidOf } from './ulid';
import type { CustomerioConfig, customerioDefinition } from './definition';

/**
 * Customer.io: people, events and objects through the Track API v2 batch endpoint (every message is one entity of
 * a POST /api/v2/batch, so live delivery sends many at once), people deleted through the Track API v1.
 * Docs: docs.customer.io/integrations/api/track ("v1 vs v2 APIs", "v2 API Limits", Track v2 "Send multiple
 * requests" and its entity payloads "Person: Identify", "Person: Event", "Person: Page view", "Person: Screen
 * view", "Person: Merge", "Object: Identify", "Object: Identify anonymous"; "Delete a customer").
 */

// Track API "Overview": the EU region differs from the US one only by its subdomain.
const HOSTS = { US: 'https://track.customer.io', EU: 'https://track-eu.customer.io' } as const;

// "v2 API Limits": a /batch request must be smaller than 500 kB, each entity in it 32 kB or smaller.
const MAX_ENTITY_BYTES = 32 * 1024;

const baseOf = (config: CustomerioConfig) => trimBase(config.baseUrl ?? HOSTS[config.datacenter ?? 'US']);

/** Track API authentication: Basic with site_id:api_key. */
function request(config: CustomerioConfig, method: DestinationRequest['method'], path: string, json?: Record<string, unknown>, userId?: unknown) {
  return restRequest({
    method,
    endpoint: `${baseOf(config)}${path}`,
    headers: {
      ...(json && { 'Content-Type': 'application/json' }),
      Authorization: `Basic ${Buffer.from(`${config.siteID}:${config.apiKey}`).toString('base64')}`,
    },
    json,
    userId,
  });
}

/** "Send multiple requests": {batch: [entities]}; a message is a batch of one, which live delivery combines. */
function batchOfOne(config: CustomerioConfig, entity: Record<string, unknown>, message: Message): DestinationRequest {
  const bytes = Buffer.byteLength(JSON.stringify(entity));
  if (bytes > MAX_ENTITY_BYTES) throw instrumentationError(`the event is ${bytes} bytes as a Customer.io entity; the Track v2 API takes at most 32 kB`);
  return request(config, 'POST', '/api/v2/batch', { batch: [entity] }, message.anonymousId);
}

/** Timestamps in the Track API are unix seconds. */
const unixSeconds = (value: unknown): number | undefined => {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
};

const customerPath = (id: string) => `/api/v1/customers/${encodeURIComponent(id)}`;

/**
 * "Person: Identify": traits as attributes; created_at in unix seconds; anonymous_id (an attribute) links the events
 * sent anonymously before. timestamp, when the update happened, keeps updates sent close together in order.
 */
function identify(message: Message): Record<string, unknown> {
  const userId = userIdOf(message);
  if (!userId) throw instrumentationError('Customer.io needs a userId to identify a person (identifiers.id)');
  const { createdAt, created_at, userId: _userId, ...traits } = traitsOf(message);
  const created = unixSeconds(createdAt ?? created_at);
  const anonymousId = anonymousIdOf(message);
  const timestamp = unixSeconds(eventTime(message)?.getTime());
  return {
    type: 'person',
    identifiers: { id: userId },
    action: 'identify',
    attributes: { ...traits, ...(created !== undefined && { created_at: created }), ...(anonymousId && { anonymous_id: anonymousId }) },
    ...(timestamp !== undefined && { timestamp }),
  };
}

/**
 * "Person: Event" / "Person: Page view" / "Person: Screen view": {name, id, timestamp, attributes}. A page's name is
 * the URL that was viewed, a screen's the screen's name. `id` is the ULID Customer.io de-duplicates events by (see
 * ulid.ts). An anonymous person is named by anonymous_id, merged into the person identified with it later.
 */
function event(message: Message, action: 'event' | 'page' | 'screen', name: string): Record<string, unknown> {
  if (name.trim() === '') throw instrumentationError(`a ${String(message.type)} event needs a name for Customer.io`);
  const userId = userIdOf(message);
  const anonymousId = anonymousIdOf(message);
  if (!userId && !anonymousId) throw instrumentationError(`Customer.io needs a userId or an anonymousId on the ${String(message.type)} event`);
  const time = eventTime(message);
  const timestamp = unixSeconds(time?.getTime());
  const messageId = idText(message.messageId);
  return {
    type: 'person',
    identifiers: userId ? { id: userId } : { anonymous_id: anonymousId },
    action,
    ...(messageId && { id: ulidOf(messageId, time) }),
    name: name.trim(),
    ...(timestamp !== undefined && { timestamp }),
    attributes: propertiesOf(message),
  };
}

/**
 * "Object: Identify": a group is an object (type id from traits.objectTypeId, else "1", the first object type)
 * related to the person; an anonymous person is related by anonymous_id ("Object: Identify anonymous").
 */
function group(message: Message): Record<string, unknown> {
  const groupId = firstOf(message, 'groupId');
  if (groupId === undefined) throw instrumentationError('a group event needs a groupId');
  const { objectTypeId, ...attributes } = isRecord(message.traits) ? message.traits : {};
  const identifiers = {
    object_type_id: String(objectTypeId ?? get(message, 'integrations.CUSTOMERIO.objectTypeId') ?? '1'),
    object_id: String(groupId),
  };
  const userId = userIdOf(message);
  const anonymousId = anonymousIdOf(message);
  if (!userId && !anonymousId) throw instrumentationError('Customer.io needs a userId or an anonymousId on the group event');
  return userId
    ? { type: 'object', identifiers, action: 'identify', attributes, cio_relationships: [{ identifiers: { id: userId } }] }
    : { type: 'object', identifiers, action: 'identify_anonymous', attributes, cio_relationships: [{ identifiers: { anonymous_id: anonymousId } }] };
}

/** "Person: Merge": the person of the previousId (secondary) is merged into the userId's (primary), then deleted. */
function alias(message: Message): Record<string, unknown> {
  const userId = userIdOf(message);
  const previousId = idText(message.previousId);
  if (!userId || !previousId) throw instrumentationError('a Customer.io alias needs a userId and a previousId (the people to merge)');
  return { type: 'person', action: 'merge', primary: { id: userId }, secondary: { id: previousId } };
}

function entityOf(message: Message): Record<string, unknown> {
  const name = typeof message.name === 'string' ? message.name : '';
  switch (message.type) {
    case 'identify':
      return identify(message);
    case 'track':
      return event(message, 'event', typeof message.event === 'string' ? message.event : '');
    case 'page': {
      const url = firstOf(message, 'properties.url', 'context.page.url');
      return event(message, 'page', typeof url === 'string' ? url : name);
    }
    case 'screen':
      return event(message, 'screen', name);
    case 'group':
      return group(message);
    case 'alias':
      return alias(message);
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Customer.io`);
  }
}

/**
 * "Send multiple requests" answers 207 when some entities were invalid: `errors[].batch_index` names them, every
 * other entity was accepted. An invalid entity stays invalid, so those events are refused, the rest delivered.
 */
function customerioVerdicts(answer: { status: number; response: unknown }, count: number): ChunkEventVerdict[] | undefined {
  const errors = isRecord(answer.response) && Array.isArray(answer.response.errors) ? answer.response.errors : undefined;
  if (answer.status !== 207 || !errors) return undefined;
  const refused = new Map<number, string[]>();
  for (const entry of errors) {
    if (!isRecord(entry) || !Number.isInteger(entry.batch_index)) continue;
    const index = entry.batch_index as number;
    if (index < 0 || index >= count) continue;
    const text = [entry.field && `${String(entry.field)}:`, entry.reason, entry.message].filter((part) => typeof part === 'string' && part !== '').join(' ');
    refused.set(index, [...(refused.get(index) ?? []), text || 'invalid entity']);
  }
  if (refused.size === 0) return undefined;
  return Array.from({ length: count }, (_, i) =>
    refused.has(i) ? { kind: 'refused', error: `Customer.io refused the event: ${refused.get(i)!.join('; ')}` } : { kind: 'delivered' },
  );
}

export const customerio = defineDestinationCode<typeof customerioDefinition>({
  delivery: 'http',
  // "v2 API Limits": under 500 kB per /batch request (its entities, in UTF-8, with room to spare); the docs set no
  // count. Events carry a ULID made from their messageId, so Customer.io drops the events of a resent chunk.
  batch: { maxEvents: 1000, maxBytes: 480_000, lists: ['JSON.batch'], verdicts: customerioVerdicts },
  transform: (message, config) => [batchOfOne(config, entityOf(message), message)],
  /**
   * "Delete a customer": one DELETE per person. A 404 counts as deleted: the reference lists no 404 for this
   * endpoint, and a person Customer.io does not know is already in the state the deletion asks for.
   */
  deleteUsers: (users, config, io) =>
    deleteEachUser(users, async (user) => deletionOutcome('Customer.io', await io.send(request(config, 'DELETE', customerPath(user.userId))))),
});
