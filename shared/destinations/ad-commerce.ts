import { eventTime, firstOf, idText, isRecord, numberOf, propertiesOf, textOf, trackEventName } from './message';
import { instrumentationError } from './errors';
import type { Message } from './types';

/**
 * What the ad networks' conversion APIs share beyond the customer information (ad-matching.ts): the event
 * spec's ecommerce properties read once (products, value, currency, order), the event's time in Unix seconds,
 * the de-duplication id, the configurable event-name map, and the reason the calls they have no event for
 * are refused.
 */

export interface Product {
  id?: string;
  name?: string;
  category?: string;
  brand?: string;
  price?: number;
  quantity?: number;
}

function productOf(item: Record<string, unknown>): Product {
  const product: Product = {
    id: idText(firstOf(item, 'product_id', 'sku', 'id')),
    name: textOf(item.name),
    category: textOf(item.category),
    brand: textOf(item.brand),
    price: numberOf(item.price),
    quantity: numberOf(item.quantity),
  };
  return Object.fromEntries(Object.entries(product).filter(([, v]) => v !== undefined)) as Product;
}

/** The products of an event: properties.products, else the properties themselves when they name one product. */
function productsOf(message: Message): Product[] {
  const properties = propertiesOf(message);
  if (Array.isArray(properties.products)) return properties.products.filter(isRecord).map(productOf);
  const single = productOf(properties);
  return single.id !== undefined ? [single] : [];
}

export interface Commerce {
  value?: number;
  currency?: string;
  orderId?: string;
  query?: string;
  products: Product[];
  /** Sum of the products' quantities (1 each where none is given). */
  numItems?: number;
}

/** The event's money and products: value from value, revenue, total, else a single product's price × quantity. */
export function commerceOf(message: Message): Commerce {
  const properties = propertiesOf(message);
  const products = productsOf(message);
  const single = products.length === 1 && !Array.isArray(properties.products) ? products[0] : undefined;
  const value =
    numberOf(properties.value) ??
    numberOf(properties.revenue) ??
    numberOf(properties.total) ??
    (single?.price !== undefined ? single.price * (single.quantity ?? 1) : undefined);
  const currency = textOf(properties.currency)?.toUpperCase();
  return {
    products,
    ...(value !== undefined && { value }),
    ...(currency && { currency }),
    ...(idText(properties.order_id) && { orderId: idText(properties.order_id) }),
    ...(textOf(properties.query) && { query: textOf(properties.query) }),
    ...(products.length > 0 && { numItems: products.reduce((n, p) => n + (p.quantity ?? 1), 0) }),
  };
}

/** Unix seconds of the event (the networks' `event_time`); the present where the event carries no time. */
export const unixSeconds = (message: Message) => Math.floor((eventTime(message) ?? new Date()).getTime() / 1000);

/** The de-duplication key every network takes as `event_id`: the messageId, as the browser pixel gets it too. */
export function eventIdOf(message: Message, network: string): string {
  const id = idText(message.messageId);
  if (!id) throw instrumentationError(`${network} needs a messageId (event_id, the key it de-duplicates on)`);
  return id;
}

/** The network's name for a track event: the configured map, the standard mapping, else `fallback(event)`. */
export function networkEventName(
  message: Message,
  standard: Record<string, string>,
  configured: { from: string; to: string }[] | undefined,
  fallback: (event: string) => string,
): string {
  const event = trackEventName(message);
  return configured?.find((pair) => pair.from === event)?.to ?? standard[event] ?? fallback(event);
}

/** The calls a conversion API has no event for, refused with the reason. */
function refuseNonConversion(message: Message, network: string): never {
  const type = String(message.type);
  const why: Record<string, string> = {
    identify: `${network} takes conversion events only: an identify has no event there (its traits go with later events as hashed customer information)`,
    group: `${network} takes conversion events only: a group has no event there`,
    alias: `${network} takes conversion events only: an alias has no event there (it has no user merge)`,
    screen: `${network} is set up for web events here: a screen is an app view, which needs the app's own data`,
  };
  throw instrumentationError(why[type] ?? `message type ${type} is not supported by ${network}`);
}

/**
 * The Meta Pixel's standard events for the event spec's ecommerce and lifecycle names. TikTok's standard events
 * take the same names but for a purchase; Pinterest and Snap name theirs in their own way.
 */
export const PIXEL_STANDARD_EVENTS: Readonly<Record<string, string>> = {
  'Order Completed': 'Purchase',
  'Product Added': 'AddToCart',
  'Checkout Started': 'InitiateCheckout',
  'Product Viewed': 'ViewContent',
  'Products Searched': 'Search',
  'Product Added to Wishlist': 'AddToWishlist',
  'Payment Info Entered': 'AddPaymentInfo',
  'Signed Up': 'CompleteRegistration',
};

/** A network's event names: a track's as networkEventName finds them, a page's `page`; `network` names it in reasons. */
export type ConversionNames = { network: string; page: string; standard: Record<string, string>; fallback: (event: string) => string };

/** The network's event name for a track (`configured` first) or a page; any other call is refused with the reason. */
export function conversionEventName(message: Message, names: ConversionNames, configured: { from: string; to: string }[] | undefined): string {
  if (message.type === 'track') return networkEventName(message, names.standard, configured, names.fallback);
  if (message.type === 'page') return names.page;
  return refuseNonConversion(message, names.network);
}

/** What `build` makes of a track event's commerce, under `key` where it holds anything; nothing for other calls. */
export function commerceField(message: Message, key: string, build: (commerce: Commerce) => Record<string, unknown>): Record<string, unknown> {
  const data = message.type === 'track' ? build(commerceOf(message)) : {};
  return Object.keys(data).length > 0 ? { [key]: data } : {};
}
