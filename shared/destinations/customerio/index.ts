import { z } from 'zod';
import { deletionOutcome } from '../deletion';
import { instrumentationError } from '../errors';
import { anonymousIdOf, eventTime, firstOf, get, isRecord, propertiesOf, traitsOf, trimBase, userIdOf } from '../message';
import { restRequest } from '../request';
import { defineDestination, type DeletionOutcome, type DestinationRequest, type Message } from '../types';

/**
 * Customer.io: people and events through the Track API (v1), objects through Track API v2 /api/v2/entity.
 * Docs: docs.customer.io/integrations/api/track ("Add or update a customer", "Track a customer event", "Track an
 * anonymous event", "Merge customers", "Delete a customer", "Track v2: Object: Identify").
 */

// Track API "Overview": the EU region differs from the US one only by its subdomain.
const HOSTS = { US: 'https://track.customer.io', EU: 'https://track-eu.customer.io' } as const;

const CustomerioConfig = z.strictObject({
  siteID: z.string().min(1, 'siteID is required'),
  apiKey: z.string().min(1, 'apiKey is required'),
  datacenter: z.enum(['US', 'EU']).optional().describe('account region; US when not set'),
  baseUrl: z
    .url({ protocol: /^https?$/, error: 'baseUrl must be an http(s) URL' })
    .optional()
    .describe('replaces the Track API host (proxies, tests)'),
});
type CustomerioConfig = z.output<typeof CustomerioConfig>;

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

/** Timestamps in the Track API are unix seconds. */
const unixSeconds = (value: unknown): number | undefined => {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const ms = new Date(value).getTime();
  return Number.isNaN(ms) ? undefined : Math.floor(ms / 1000);
};

const customerPath = (id: string) => `/api/v1/customers/${encodeURIComponent(id)}`;

/**
 * "Add or update a customer": traits as attributes; created_at in unix seconds; anonymous_id links the events sent
 * anonymously before ("Track an anonymous event": merged when the person gets that anonymous_id).
 */
function identify(message: Message, config: CustomerioConfig): DestinationRequest {
  const userId = userIdOf(message);
  if (!userId) throw instrumentationError('Customer.io needs a userId to identify a person (the customer id in the path)');
  const { createdAt, created_at, userId: _userId, ...traits } = traitsOf(message);
  const created = unixSeconds(createdAt ?? created_at);
  const anonymousId = anonymousIdOf(message);
  const body = { ...traits, ...(created !== undefined && { created_at: created }), ...(anonymousId && { anonymous_id: anonymousId }) };
  return request(config, 'PUT', customerPath(userId), body, message.anonymousId);
}

/**
 * "Track a customer event" / "Track an anonymous event": {name, type?, data, timestamp}. Page and screen events have
 * the type page or screen; a page's name is the URL that was viewed, a screen's the screen's name.
 */
function event(message: Message, config: CustomerioConfig, name: string, type?: 'page' | 'screen'): DestinationRequest {
  if (name.trim() === '') throw instrumentationError(`a ${String(message.type)} event needs a name for Customer.io`);
  const timestamp = unixSeconds(eventTime(message)?.getTime());
  const body = { name: name.trim(), ...(type && { type }), data: propertiesOf(message), ...(timestamp !== undefined && { timestamp }) };
  const userId = userIdOf(message);
  if (userId) return request(config, 'POST', `${customerPath(userId)}/events`, body, message.anonymousId);
  const anonymousId = anonymousIdOf(message);
  if (!anonymousId) throw instrumentationError(`Customer.io needs a userId or an anonymousId on the ${String(message.type)} event`);
  return request(config, 'POST', '/api/v1/events', { ...body, anonymous_id: anonymousId }, message.anonymousId);
}

/**
 * Track v2 "Object: Identify": a group is an object (type id from traits.objectTypeId, else "1", the first object
 * type) related to the person; an anonymous person is related by anonymous_id ("Object: Identify anonymous").
 */
function group(message: Message, config: CustomerioConfig): DestinationRequest {
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
  const body = userId
    ? { type: 'object', identifiers, action: 'identify', attributes, cio_relationships: [{ identifiers: { id: userId } }] }
    : {
        type: 'object',
        identifiers,
        action: 'identify_anonymous',
        attributes,
        cio_relationships: [{ identifiers: { anonymous_id: anonymousId } }],
      };
  return request(config, 'POST', '/api/v2/entity', body, message.anonymousId);
}

/** "Merge customers": the person of the previousId (secondary) is merged into the userId's (primary), then deleted. */
function alias(message: Message, config: CustomerioConfig): DestinationRequest {
  const userId = userIdOf(message);
  const previousId = firstOf(message, 'previousId');
  if (!userId || (typeof previousId !== 'string' && typeof previousId !== 'number')) {
    throw instrumentationError('a Customer.io alias needs a userId and a previousId (the people to merge)');
  }
  return request(config, 'POST', '/api/v1/merge_customers', { primary: { id: userId }, secondary: { id: String(previousId) } }, message.anonymousId);
}

function transformMessage(message: Message, config: CustomerioConfig): DestinationRequest {
  const name = typeof message.name === 'string' ? message.name : '';
  switch (message.type) {
    case 'identify':
      return identify(message, config);
    case 'track':
      return event(message, config, typeof message.event === 'string' ? message.event : '');
    case 'page': {
      const url = firstOf(message, 'properties.url', 'context.page.url');
      return event(message, config, typeof url === 'string' ? url : name, 'page');
    }
    case 'screen':
      return event(message, config, name, 'screen');
    case 'group':
      return group(message, config);
    case 'alias':
      return alias(message, config);
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Customer.io`);
  }
}

export const customerio = defineDestination({
  name: 'CUSTOMERIO',
  displayName: 'Customer.io',
  config: CustomerioConfig,
  delivery: 'http',
  transform: (message, config) => [transformMessage(message, config)],
  /**
   * "Delete a customer": one DELETE per person. A 404 counts as deleted: the reference lists no 404 for this
   * endpoint, and a person Customer.io does not know is already in the state the deletion asks for. The worst
   * outcome wins: a retryable failure (sending again may succeed for all), else the first final failure.
   */
  async deleteUsers(users, config, io) {
    const failures: Extract<DeletionOutcome, { status: 'failed' }>[] = [];
    for (const user of users) {
      const outcome = deletionOutcome('Customer.io', await io.send(request(config, 'DELETE', customerPath(user.userId))));
      if (outcome.status === 'failed') failures.push(outcome);
      else if (outcome.status === 'unsupported') return outcome;
    }
    return failures.find((f) => f.retryable) ?? failures[0] ?? { status: 'completed' };
  },
});
