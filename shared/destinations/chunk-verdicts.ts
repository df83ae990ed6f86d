import type { BatchApi, ChunkEventVerdict, DeliveryResult, Message, ServerBatchResult } from './types';

/** A chunk split into the events a store can take (with their index in the chunk) and those it cannot. */
export interface SortedChunk<T> {
  accepted: { index: number; item: T }[];
  verdicts: ChunkEventVerdict[];
}

/** Builds each event's item, or the reason it cannot be sent (a refused verdict for that event alone). */
export function sortChunk<T>(messages: Message[], build: (message: Message) => T | { refused: string }): SortedChunk<T> {
  const accepted: SortedChunk<T>['accepted'] = [];
  const verdicts: ChunkEventVerdict[] = messages.map((message, index) => {
    const item = build(message);
    if (item && typeof item === 'object' && 'refused' in item) return { kind: 'refused', error: String(item.refused) };
    accepted.push({ index, item: item as T });
    return { kind: 'delivered' };
  });
  return { accepted, verdicts };
}

/** What a chunk none of whose events could be sent comes to. */
export const nothingToSend = (verdicts: ChunkEventVerdict[]): ServerBatchResult => ({
  status: 400,
  response: '',
  error: verdicts.map((v) => (v.kind === 'delivered' ? '' : v.error)).find(Boolean) ?? 'nothing to send',
  retryable: false,
  verdicts,
});

/**
 * Whether a batch request refused as a whole, naming no event, may have been refused for what one of its events
 * holds: a 400, 413 or 422 answer its type does not read as about credentials or setup (BatchApi.setupRefusal).
 * Delivery then sends the chunk again in halves, down to one event, so that one bad event costs only itself.
 */
export const refusedForContent = (api: BatchApi, answer: DeliveryResult): boolean =>
  answer.error === undefined && !answer.retryable && [400, 413, 422].includes(answer.status) && !(api.setupRefusal?.(answer) ?? false);

/** The verdict of every sent event when the answer is about the request as a whole. */
export function wholeAnswer(answer: DeliveryResult): ChunkEventVerdict {
  if (answer.status >= 200 && answer.status < 300) return { kind: 'delivered' };
  const error = answer.error ?? `answered ${answer.status}`;
  return answer.retryable ? { kind: 'retryable', error } : { kind: 'refused', error };
}

/** The answer with a verdict for every event: those refused before sending keep theirs. */
export function withVerdicts(answer: DeliveryResult, chunk: SortedChunk<unknown>, sentVerdict: (position: number) => ChunkEventVerdict): ServerBatchResult {
  const verdicts = [...chunk.verdicts];
  chunk.accepted.forEach(({ index }, position) => (verdicts[index] = sentVerdict(position)));
  return { ...answer, verdicts };
}
