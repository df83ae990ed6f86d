import { createHash } from 'node:crypto';

/**
 * The events the ad networks' suites send, and the SHA-256 their documentation asks for, written out from the
 * normalised text (lowercase hex, UTF-8).
 */
export const sha = (normalised: string) => createHash('sha256').update(normalised, 'utf8').digest('hex');

export const AT = '2026-11-23T10:00:00.000Z';
export const AT_SECONDS = 1795428000;

/** A browser event's context: address, agent, page, and the person's traits as identify left them. */
export const CONTEXT = {
  ip: '203.0.113.7',
  userAgent: 'Mozilla/5.0 (X11; Linux x86_64)',
  page: { url: 'https://shop.example/checkout', referrer: 'https://search.example/' },
  traits: {
    email: ' Ada@Example.COM ',
    phone: '+1 (415) 555-0100',
    firstName: 'Ada',
    lastName: "O'Neil",
    gender: 'Female',
    address: { city: 'San Francisco', state: 'CA', postalCode: '94105-1234', country: 'US' },
  },
};

/** The same traits normalised (the vendors' rules) and hashed. */
export const HASHED = {
  em: sha('ada@example.com'),
  ph: sha('14155550100'),
  fn: sha('ada'),
  ln: sha('oneil'),
  ct: sha('sanfrancisco'),
  st: sha('ca'),
  zp: sha('94105'),
  country: sha('us'),
  ge: sha('f'),
  external_id: sha('u-1'),
};

export const base = { messageId: 'm-1', userId: 'U-1', anonymousId: 'a-1', timestamp: AT, context: CONTEXT };

export const ORDER = {
  ...base,
  type: 'track',
  event: 'Order Completed',
  properties: {
    order_id: 'o-9',
    revenue: 40,
    currency: 'eur',
    products: [
      { product_id: 'p-1', name: 'Monitor', category: 'Screens', brand: 'Acme', price: 19.99, quantity: 2 },
      { sku: 'SKU-2', price: 1.52 },
    ],
  },
};

export const PRODUCT_ADDED = {
  ...base,
  type: 'track',
  event: 'Product Added',
  properties: { product_id: 'p-1', name: 'Monitor', price: 19.99, quantity: 2, currency: 'USD' },
};

/**
 * One web event as Meta, Pinterest and Snap take it (their documented `data` items share these fields): time in
 * seconds, the messageId as event_id, the page, and user_data of each hash in a list with address and agent unhashed.
 */
export const webConversion = (actionSource: string, fields: Record<string, unknown>) => ({
  event_time: AT_SECONDS,
  event_id: 'm-1',
  action_source: actionSource,
  event_source_url: CONTEXT.page.url,
  user_data: {
    ...Object.fromEntries(Object.entries(HASHED).map(([key, hash]) => [key, [hash]])),
    client_ip_address: CONTEXT.ip,
    client_user_agent: CONTEXT.userAgent,
  },
  ...fields,
});
