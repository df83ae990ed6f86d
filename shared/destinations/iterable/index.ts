import { createHash } from 'node:crypto';
import { deletionOutcome } from '../deletion';
import { instrumentationError } from '../errors';
import { eventTime, firstOf, idText, isRecord, propertiesOf, trackEventName, traitsOf, trimBase, userIdOf, viewEvent } from '../message';
import { postJson } from '../request';
import { defineDestinationCode, type DeletionIO, type DeletionOutcome, type DeletionUser, type DestinationRequest, type Message } from '../types';
import { iterableVerdicts } from './verdicts';
import type { IterableConfig, iterableDefinition } from './definition';

/**
 * Iterable: users through POST /api/users/bulkUpdate, events through POST /api/events/trackBulk, orders through
 * POST /api/commerce/trackPurchase, alias through POST /api/users/merge, deletion through POST /api/users/forget.
 * Docs: the Iterable API reference (api.iterable.com/api/docs: BulkUpdateUsersRequest, BulkTrackRequest,
 * TrackRequest, TrackPurchaseRequest, CommerceItem, MergeUsersRequest, UserRequest and their answers) and
 * "Getting Started with Iterable's API" (support.iterable.com: the Api-Key header, the data centres' base URLs).
 */

// "Base URLs": USDC-based projects use api.iterable.com, EDC-based ones api.eu.iterable.com.
const HOSTS = { US: 'https://api.iterable.com', EU: 'https://api.eu.iterable.com' } as const;

const baseOf = (config: IterableConfig) => trimBase(config.baseUrl ?? HOSTS[config.dataCenter ?? 'US']);

/** "Authentication": the key in an Api-Key header; every body is JSON. */
const post = (config: IterableConfig, path: string, json: Record<string, unknown>, userId?: unknown): DestinationRequest =>
  postJson(`${baseOf(config)}${path}`, json, { headers: { 'Api-Key': config.apiKey }, userId });

/**
 * Who a request is about: "Provide an email or a userId (but not both)". The userId where the event has one
 * (with preferUserId, so an email-based project creates the user), else the email of its traits.
 */
function who(message: Message): { userId: string; preferUserId: true } | { email: string } {
  const userId = userIdOf(message);
  if (userId) return { userId, preferUserId: true };
  const email = idText(traitsOf(message).email);
  if (email) return { email };
  throw instrumentationError(`Iterable needs a userId or an email (traits.email) on the ${String(message.type)} event`);
}

/** TrackRequest takes no preferUserId. */
function identified(message: Message): { userId: string } | { email: string } {
  const id = who(message);
  return 'userId' in id ? { userId: id.userId } : id;
}

// TrackRequest.id / TrackPurchaseRequest.id: "If an event exists with that id, the event will be updated ... cannot be
// longer than 512 bytes". The messageId, or its SHA-256 where it is longer: the same event always gets the same id.
function eventId(message: Message): string | undefined {
  const messageId = idText(message.messageId);
  if (!messageId) return undefined;
  return Buffer.byteLength(messageId) <= 512 ? messageId : createHash('sha256').update(messageId).digest('hex');
}

/** createdAt: "Expects a unix timestamp": seconds, as Iterable's own web SDK sends it for track and trackPurchase. */
function createdAt(message: Message): number | undefined {
  const time = eventTime(message);
  return time ? Math.floor(time.getTime() / 1000) : undefined;
}

/** One TrackRequest in a trackBulk request of one (live delivery combines them): eventName, id, createdAt, dataFields. */
function trackBulk(config: IterableConfig, message: Message, eventName: string, dataFields: Record<string, unknown>): DestinationRequest {
  const id = eventId(message);
  const time = createdAt(message);
  const event = { ...identified(message), eventName, ...(id && { id }), ...(time !== undefined && { createdAt: time }), dataFields };
  return post(config, '/api/events/trackBulk', { events: [event] }, message.anonymousId);
}

/** An OptionalApiUser in a bulkUpdate request of one: the traits as dataFields. */
const bulkUpdate = (config: IterableConfig, message: Message): DestinationRequest =>
  post(config, '/api/users/bulkUpdate', { users: [{ ...who(message), dataFields: traitsOf(message) }] }, message.anonymousId);

const text = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value : undefined);

/** CommerceItem: id, name, price and quantity are required; sku, categories, url, imageUrl, description where given. */
function commerceItem(item: unknown, i: number): Record<string, unknown> {
  const product = isRecord(item) ? item : {};
  const id = idText(firstOf(product, 'product_id', 'sku', 'id'));
  const price = Number(product.price);
  if (!id || product.price === undefined || product.price === null || !Number.isFinite(price)) {
    throw instrumentationError(`Order Completed product ${i} needs a product_id (or sku or id) and a numeric price for an Iterable purchase`);
  }
  const quantity = Number(product.quantity ?? 1);
  const category = text(product.category);
  const { product_id: _p, sku, id: _i, name, price: _pr, quantity: _q, category: _c, url, image_url: imageUrl, description, ...rest } = product;
  return {
    id,
    ...(text(sku) && { sku }),
    name: text(name) ?? id,
    price,
    quantity: Number.isInteger(quantity) ? quantity : 1,
    ...(category && { categories: [category] }),
    ...(text(url) && { url }),
    ...(text(imageUrl) && { imageUrl }),
    ...(text(description) && { description }),
    ...(Object.keys(rest).length > 0 && { dataFields: rest }),
  };
}

/**
 * "Track a purchase" (TrackPurchaseRequest): user, items, total, id (the messageId, so a resent order updates the
 * same purchase), createdAt and the order's other properties as dataFields. total: the order's total, else its
 * revenue, else the sum of its items.
 */
function trackPurchase(config: IterableConfig, message: Message, products: unknown[]): DestinationRequest {
  const { products: _products, total, revenue, ...rest } = propertiesOf(message);
  const items = products.map(commerceItem);
  const sum = items.reduce((n, item) => n + (item.price as number) * (item.quantity as number), 0);
  const stated = Number(total ?? revenue);
  const traits = traitsOf(message);
  const id = eventId(message);
  const time = createdAt(message);
  return post(
    config,
    '/api/commerce/trackPurchase',
    {
      ...(id && { id }),
      user: { ...who(message), ...(Object.keys(traits).length > 0 && { dataFields: traits }) },
      items,
      total: Number.isFinite(stated) ? stated : sum,
      ...(time !== undefined && { createdAt: time }),
      dataFields: rest,
    },
    message.anonymousId,
  );
}

/** "Merge users": the previous user (source) into the userId (destination), both by userId. */
function merge(config: IterableConfig, message: Message): DestinationRequest {
  const userId = userIdOf(message);
  const previousId = idText(message.previousId);
  if (!userId || !previousId) throw instrumentationError('an Iterable alias needs a userId and a previousId (the users to merge)');
  return post(config, '/api/users/merge', { sourceUserId: previousId, destinationUserId: userId }, message.anonymousId);
}

function transformMessage(message: Message, config: IterableConfig): DestinationRequest {
  switch (message.type) {
    case 'identify':
      return bulkUpdate(config, message);
    case 'track': {
      const event = trackEventName(message);
      const products = propertiesOf(message).products;
      if (event === 'Order Completed' && Array.isArray(products) && products.length > 0) return trackPurchase(config, message, products);
      return trackBulk(config, message, event, propertiesOf(message));
    }
    case 'page':
    case 'screen': {
      // Views are custom events, "Viewed <name> Page|Screen", with the name kept as a data field; a blank name is none.
      const { event, properties } = viewEvent(message, text(message.name));
      return trackBulk(config, message, event, properties);
    }
    case 'alias':
      return merge(config, message);
    default:
      throw instrumentationError(`message type ${String(message.type)} is not supported by Iterable (it has no groups)`);
  }
}

/**
 * "Forget a user in compliance with GDPR": email-based projects forget by email, userID-based ones by userId,
 * hybrid ones by either, and a request names one of them. A user is forgotten by userId and, where the
 * regulation gives one, by email too; one call answered 2xx forgets them.
 */
async function forget(user: DeletionUser, config: IterableConfig, io: DeletionIO): Promise<DeletionOutcome> {
  const bodies = [{ userId: user.userId }, ...(user.email ? [{ email: user.email }] : [])];
  const outcomes: DeletionOutcome[] = [];
  for (const body of bodies) outcomes.push(deletionOutcome('Iterable', await io.send(post(config, '/api/users/forget', body))));
  return outcomes.find((o) => o.status === 'completed') ?? worst(outcomes);
}

/** A retryable failure first (sending again may succeed for all), then any other. */
const worst = (outcomes: DeletionOutcome[]): DeletionOutcome =>
  outcomes.find((o) => o.status === 'failed' && o.retryable) ?? outcomes.find((o) => o.status !== 'completed') ?? { status: 'completed' };

export const iterable = defineDestinationCode<typeof iterableDefinition>({
  delivery: 'http',
  // bulkUpdate: "Max size of request body: 4MB"; trackBulk documents no limit of its own and is held to the same.
  // Neither documents a count: 1,000 a request. Events carry `id` = the messageId, so a resent chunk updates them.
  batch: { maxEvents: 1000, maxBytes: 3_900_000, lists: ['JSON.users', 'JSON.events'], verdicts: iterableVerdicts },
  transform: (message, config) => [transformMessage(message, config)],
  async deleteUsers(users, config, io) {
    const outcomes: DeletionOutcome[] = [];
    for (const user of users) outcomes.push(await forget(user, config, io));
    return worst(outcomes);
  },
});
