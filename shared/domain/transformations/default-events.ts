/**
 * The events a transformation is tested on when no test input is given: a track, an identify, a page and a
 * screen, as the reference product's default suite has them (identify, page and screen share a messageId).
 */
const context = {
  app: { build: '1.0.0', name: 'Weir sample', namespace: 'dev.weir.sample', version: '1.0.0' },
  library: { name: 'analytics-node', version: '1.0.0' },
  traits: { email: 'jane@example.com', name: 'Jane Doe' },
  ip: '203.0.113.7',
  locale: 'en-US',
};

export const DEFAULT_EVENTS: Record<string, unknown>[] = [
  {
    type: 'track',
    event: 'Product Clicked',
    messageId: 'a7c8e3a0-1b6f-4f0e-9d6b-6b1f0c9b2b11',
    anonymousId: '8d872292709c6fbe',
    userId: 'user-1',
    channel: 'web',
    context,
    properties: { product_id: 'P-123', name: 'Tent', price: 249.5, currency: 'USD', quantity: 1 },
    originalTimestamp: '2026-01-01T10:00:00.000Z',
    sentAt: '2026-01-01T10:00:01.000Z',
  },
  {
    type: 'identify',
    messageId: 'b1e4f0c2-6a3d-4c57-8f19-2d3e4f5a6b7c',
    anonymousId: '8d872292709c6fbe',
    userId: 'user-1',
    channel: 'web',
    context,
    traits: { email: 'jane@example.com', name: 'Jane Doe', plan: 'pro' },
    originalTimestamp: '2026-01-01T10:00:02.000Z',
  },
  {
    type: 'page',
    name: 'Home',
    messageId: 'b1e4f0c2-6a3d-4c57-8f19-2d3e4f5a6b7c',
    anonymousId: '8d872292709c6fbe',
    userId: 'user-1',
    channel: 'web',
    context,
    properties: { path: '/', title: 'Home', url: 'https://shop.example.com/' },
    originalTimestamp: '2026-01-01T10:00:03.000Z',
  },
  {
    type: 'screen',
    name: 'Checkout',
    messageId: 'b1e4f0c2-6a3d-4c57-8f19-2d3e4f5a6b7c',
    anonymousId: '8d872292709c6fbe',
    userId: 'user-1',
    channel: 'mobile',
    context,
    properties: { step: 2 },
    originalTimestamp: '2026-01-01T10:00:04.000Z',
  },
];
