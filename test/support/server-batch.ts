import type { Message, ServerBatchContext } from '../../shared/destinations/types';

/** The context a server-delivered chunk is written with, for calling a type's `serverBatch.deliver` directly. */
export const chunkContext = (overrides: Partial<ServerBatchContext> = {}): ServerBatchContext => ({
  workspaceId: 'ws-1',
  sourceId: 'src-1',
  destinationId: 'dst-1',
  chunkKey: 'chunk-1',
  credentials: async () => ({}),
  ...overrides,
});

/** A track event of `userId` with a messageId of its own. */
export const trackOf = (n: number, userId = `u${n}`, properties: Record<string, unknown> = { n }): Message => ({
  type: 'track',
  event: 'Order Completed',
  messageId: `m-${n}`,
  userId,
  anonymousId: `a-${n}`,
  properties,
  timestamp: '2026-11-26T10:00:00.000Z',
});

/** Sets WEIR_OUTBOUND_ALLOWLIST for a suite and puts it back after. */
export function allowLocalAddresses(list = '127.0.0.1'): void {
  const saved = process.env.WEIR_OUTBOUND_ALLOWLIST;
  beforeEach(() => (process.env.WEIR_OUTBOUND_ALLOWLIST = list));
  afterAll(() => {
    if (saved === undefined) delete process.env.WEIR_OUTBOUND_ALLOWLIST;
    else process.env.WEIR_OUTBOUND_ALLOWLIST = saved;
  });
}
