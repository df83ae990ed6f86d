/** The cost bench's users: its events' user ids repeat over this many. */
export const COST_USERS = 2_000;

/**
 * The cost bench's `seed`-th SDK request of `perRequest` events (about 370 bytes each as sent, of COST_USERS
 * users, a tenth of them identify calls): the same events wherever a bench measures a stage on them.
 */
export function costRequest(seed: number, perRequest: number): Record<string, unknown>[] {
  return Array.from({ length: perRequest }, (_, i) => {
    const n = seed * perRequest + i;
    return {
      type: n % 10 === 0 ? 'identify' : 'track',
      userId: `user-${(n * 7919) % COST_USERS}`,
      anonymousId: `anon-${n % 5000}`,
      event: ['Product Viewed', 'Product Added', 'Order Completed'][n % 3],
      messageId: `cost-${n}`,
      timestamp: new Date(1_700_000_000_000 + n * 1000).toISOString(),
      properties: { product_id: `p-${n % 300}`, price: (n * 3.7) % 100, currency: 'EUR', category: 'shoes' },
      context: { library: { name: 'analytics-node', version: '3.0.0' }, ip: '203.0.113.7', userAgent: 'Mozilla/5.0 (X11; Linux x86_64)' },
    };
  });
}
