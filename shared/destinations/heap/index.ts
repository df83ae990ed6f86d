import { deleteInSlices, deletionOutcome } from '../deletion';
import { instrumentationError } from '../errors';
import { eventTime, idText, isRecord, propertiesOf, textOf, trackEventName, traitsOf, trimBase, userIdOf, viewEvent } from '../message';
import { postJson, restRequest } from '../request';
import { defineDestinationCode, type DeletionIO, type DeletionOutcome, type DeletionUser, type DestinationRequest, type Message } from '../types';
import type { HeapConfig, heapDefinition } from './definition';

/**
 * Heap: events through the server-side Track API, user properties through Add User Properties, groups through Add
 * Account Properties, each in its bulk form (the same endpoint with an `events`, `users` or `accounts` array, so
 * live delivery sends many at once); users deleted through the User Deletion API. Docs: developers.heap.io
 * reference "Track", "Bulk Track", "Add User Properties", "Bulk Add User Properties", "Add Account Properties",
 * "Bulk Add Account Properties", "User Deletion".
 */

// "Track": an EU datacenter's endpoint is c.eu.heap-api.com (not heapanalytics.com). "User Deletion": its
// instructions, on heapanalytics.com, apply to data in both data centers.
const HOSTS = {
  US: { events: 'https://heapanalytics.com', deletion: 'https://heapanalytics.com' },
  EU: { events: 'https://c.eu.heap-api.com', deletion: 'https://heapanalytics.com' },
} as const;

// "Bulk Track" / "Bulk Add User Properties" / "Bulk Add Account Properties": at most 1,000 items a request.
const MAX_ITEMS = 1000;
// "User Deletion": up to 10,000 users a request.
const MAX_DELETIONS = 10_000;
// "Track": identity is limited to 255 characters, the event name to 1024; property keys and values to fewer than 1024.
const MAX_IDENTITY = 255;
const MAX_EVENT_NAME = 1024;
const MAX_VALUE = 1023;

const hosts = (config: HeapConfig) =>
  config.baseUrl ? { events: trimBase(config.baseUrl), deletion: trimBase(config.baseUrl) } : HOSTS[config.dataCenter ?? 'US'];

const post = (config: HeapConfig, path: string, json: Record<string, unknown>, userId?: unknown): DestinationRequest =>
  postJson(`${hosts(config).events}${path}`, json, { userId });

type Value = string | number | (string | number)[];

/** A leaf as Heap takes it: a number, or a string of fewer than 1,024 characters (booleans as their text). */
function scalar(value: unknown): string | number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'boolean') return String(value);
  return typeof value === 'string' ? value.slice(0, MAX_VALUE) : undefined;
}

/**
 * Properties as Heap takes them: nested objects flattened to dotted keys, leaves as numbers or strings, arrays
 * of them kept where Heap takes arrays (event properties, stored joined by "||") and joined so otherwise.
 */
function heapProperties(value: Record<string, unknown>, arrays: boolean, prefix = '', out: Record<string, Value> = {}): Record<string, Value> {
  for (const [key, item] of Object.entries(value)) {
    const name = `${prefix}${key}`;
    if (isRecord(item)) heapProperties(item, arrays, `${name}.`, out);
    else if (Array.isArray(item)) {
      const leaves = item.map(scalar).filter((v): v is string | number => v !== undefined);
      out[name] = arrays ? leaves : leaves.join('||').slice(0, MAX_VALUE);
    } else {
      const leaf = scalar(item);
      if (leaf !== undefined) out[name] = leaf;
    }
  }
  return out;
}

/** "Add User Properties": keys named id in any casing clash with Heap's own and are left out. */
const userProperties = (traits: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(heapProperties(traits, false)).filter(([key]) => key.toLowerCase() !== 'id'));

/** The identity: the userId, at most 255 characters ("Track": identity or user_id, Heap's own id, is required). */
function identityOf(message: Message): string {
  const userId = userIdOf(message);
  if (!userId) throw instrumentationError(`Heap needs a userId (its identity) on the ${String(message.type)} event`);
  if (userId.length > MAX_IDENTITY) throw instrumentationError(`the userId is ${userId.length} characters; Heap takes an identity of at most 255`);
  return userId;
}

/** "Bulk Track": one event of an `events` array, with the messageId as idempotency_key so a resent event is dropped. */
function track(config: HeapConfig, message: Message, name: string, properties: Record<string, unknown>): DestinationRequest {
  if (name.length > MAX_EVENT_NAME) throw instrumentationError(`the event name is ${name.length} characters; Heap takes at most 1024`);
  const messageId = idText(message.messageId);
  const time = eventTime(message);
  const event = {
    identity: identityOf(message),
    event: name,
    ...(time && { timestamp: time.toISOString() }),
    properties: heapProperties(properties, true),
    ...(messageId && { idempotency_key: messageId }),
  };
  return post(config, '/api/track', { app_id: config.appId, events: [event] }, message.anonymousId);
}

function transformMessage(message: Message, config: HeapConfig): DestinationRequest {
  switch (message.type) {
    case 'identify':
      // "Bulk Add User Properties": {identity, properties} in `users`.
      return post(
        config,
        '/api/add_user_properties',
        { app_id: config.appId, users: [{ identity: identityOf(message), properties: userProperties(traitsOf(message)) }] },
        message.anonymousId,
      );
    case 'track':
      return track(config, message, trackEventName(message), propertiesOf(message));
    case 'page':
    case 'screen': {
      // Views are custom events, "Viewed <name> Page|Screen", with the name kept as a property; a blank name is none.
      const { event, properties } = viewEvent(message, textOf(message.name) && message.name);
      return track(config, message, event, properties);
    }
    case 'group': {
      // "Bulk Add Account Properties": {account_id, properties} in `accounts`. Users belong to an account through
      // the user property chosen in Heap's Account ID setting (an identify trait).
      const groupId = idText(message.groupId);
      if (!groupId) throw instrumentationError('a group event needs a groupId');
      const traits = isRecord(message.traits) ? message.traits : {};
      return post(
        config,
        '/api/add_account_properties',
        { app_id: config.appId, accounts: [{ account_id: groupId, properties: userProperties(traits) }] },
        message.anonymousId,
      );
    }
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Heap (it has no server-side alias)`);
  }
}

/** "User Deletion", POST /api/public/v0/auth_token: Basic app_id:api_key → {access_token}, valid for minutes. */
async function accessToken(config: HeapConfig & { apiKey: string }, io: DeletionIO): Promise<{ token: string } | DeletionOutcome> {
  const answer = await io.send(
    restRequest({
      method: 'POST',
      endpoint: `${hosts(config).deletion}/api/public/v0/auth_token`,
      headers: { Authorization: `Basic ${Buffer.from(`${config.appId}:${config.apiKey}`).toString('base64')}` },
    }),
  );
  const outcome = deletionOutcome('Heap', answer);
  if (outcome.status !== 'completed') return outcome.status === 'not_found' ? { status: 'failed', error: outcome.reason, retryable: false } : outcome;
  const token = isRecord(answer.response) ? idText(answer.response.access_token) : undefined;
  return token ? { token } : { status: 'failed', error: 'Heap answered auth_token without an access_token', retryable: true };
}

/** POST /api/public/v0/user_deletion: {users: [{identity}]}, up to 10,000 a request, with the token as bearer. */
async function deleteUsers(users: DeletionUser[], config: HeapConfig, io: DeletionIO): Promise<DeletionOutcome> {
  const { apiKey } = config;
  if (!apiKey) return { status: 'unsupported', reason: 'Heap deletes users through its User Deletion API: set apiKey' };
  const auth = await accessToken({ ...config, apiKey }, io);
  if (!('token' in auth)) return auth;
  return deleteInSlices('Heap', users, MAX_DELETIONS, io, (slice) =>
    postJson(
      `${hosts(config).deletion}/api/public/v0/user_deletion`,
      { users: slice.map((u) => ({ identity: u.userId })) },
      { headers: { Authorization: `Bearer ${auth.token}` } },
    ),
  );
}

export const heap = defineDestinationCode<typeof heapDefinition>({
  delivery: 'http',
  // The bulk forms take 1,000 items; Heap documents no byte limit, so a request is held under 1 MB. Events carry
  // idempotency_key = the messageId: a resent chunk's events are not stored twice; properties are state.
  batch: { maxEvents: MAX_ITEMS, maxBytes: 1_000_000, lists: ['JSON.events', 'JSON.users', 'JSON.accounts'] },
  transform: (message, config) => [transformMessage(message, config)],
  deleteUsers,
});
