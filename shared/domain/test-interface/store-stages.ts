import type { DestinationType, Message } from '../../destinations';
import { chunkKeyOf, deliverChunk } from '../delivery/sender';
import type { TestDataEntry } from './schemas';

/** Who a store's test write is for: its workspace (the chunk's scope) and the credentials of the call. */
export interface StoreTestScope {
  workspaceId: string;
  destinationId: string;
  credentials: Record<string, string>;
}

/**
 * The destination-transform and send stages of a store the test interface answers (a warehouse): what the
 * event becomes (its preview), then the event written as a chunk of one, its answer shown as a response.
 */
export async function storeStages(
  type: DestinationType,
  config: Record<string, unknown>,
  event: Message,
  send: boolean,
  scope: StoreTestScope,
): Promise<{
  built: { ok: true; payload: Record<string, unknown>[] } | { ok: false; error: string };
  sent?: Pick<TestDataEntry, 'destination_response' | 'destination_response_status'>;
}> {
  const built = type.preview!(event, config);
  if (!built.ok || !send) return { built };
  const context = {
    workspaceId: scope.workspaceId,
    sourceId: 'test-interface',
    destinationId: scope.destinationId,
    chunkKey: chunkKeyOf(scope.destinationId, [`${String(event.messageId)}#0`]),
    credentials: async () => scope.credentials,
  };
  const result = await deliverChunk(type.serverBatch!, [event], config, context);
  const refused = result.verdicts?.find((v) => v.kind !== 'delivered');
  const error = result.error ?? (refused && 'error' in refused ? refused.error : undefined);
  return { built, sent: { destination_response: [error ? { error } : result.response], destination_response_status: [result.status] } };
}
