import type { Message as KafkaMessage } from 'kafkajs';
import { nothingToSend, sortChunk, withVerdicts } from '../chunk-verdicts';
import { anonymousIdOf, idText, userIdOf } from '../message';
import { type ChunkEventVerdict, type Message, defineDestinationCode } from '../types';
import { destinationTimeoutMs } from '../http-client';
import { withProducer } from './connection';
import type { kafkaDefinition } from './definition';

/** Events per produce call: a chunk is one request per broker, each partition one record batch. */
const MAX_EVENTS = 500;
/** Kafka's default `max.message.bytes` (1 MB): a larger event is refused alone rather than failing its chunk. */
const MAX_RECORD_BYTES = 1_000_000;

/**
 * One event as a record: keyed by its userId (else anonymousId), so a user's events land on one partition and
 * keep their order; the value is the event's JSON; the messageId travels as a header.
 */
export function recordOf(message: Message): KafkaMessage | { refused: string } {
  const value = JSON.stringify(message);
  if (Buffer.byteLength(value) > MAX_RECORD_BYTES) return { refused: `the event is larger than ${MAX_RECORD_BYTES} bytes (Kafka's default message size)` };
  const messageId = idText(message.messageId);
  return { key: userIdOf(message) ?? anonymousIdOf(message) ?? null, value, ...(messageId && { headers: { messageId } }) };
}

/**
 * Apache Kafka: a chunk is produced to the destination's topic with kafkajs (acks from all in-sync replicas).
 * The answer is about the chunk as a whole: a produce either took every partition's batch or failed.
 */
export const kafka = defineDestinationCode<typeof kafkaDefinition>({
  delivery: 'server',
  serverBatch: {
    maxEvents: MAX_EVENTS,
    async deliver(messages, c) {
      const chunk = sortChunk(messages, recordOf);
      if (chunk.accepted.length === 0) return nothingToSend(chunk.verdicts);
      const sent = await withProducer(c, (producer) =>
        producer.send({ topic: c.topic, acks: -1, timeout: destinationTimeoutMs(), messages: chunk.accepted.map(({ item }) => item) }),
      );
      if (sent.ok) {
        const partitions = sent.value.map(({ partition, baseOffset }) => ({ partition, baseOffset }));
        return withVerdicts({ status: 200, response: { topic: c.topic, partitions }, retryable: false }, chunk, () => ({ kind: 'delivered' }));
      }
      const verdict: ChunkEventVerdict = sent.retryable ? { kind: 'retryable', error: sent.error } : { kind: 'refused', error: sent.error };
      const status = sent.refusedAddress ? 403 : sent.retryable ? 503 : 400;
      return withVerdicts({ status, response: '', error: sent.error, retryable: sent.retryable }, chunk, () => verdict);
    },
  },
});
