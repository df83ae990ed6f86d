import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { parkedRetryPolicy } from '../domain/streams/parked-records';
import type { ParkedRecordRepository } from '../domain/streams/ports';
import { ParkedRecord } from '../domain/streams/schemas';
import { componentLogger } from '../ops/logger';
import { countMetrics } from '../ops/metrics';
import { newImageOf } from '../persistence/stream-records';

const log = componentLogger('streams');

/** One record as a consumer sees it: a new image, either fresh from the stream or a parked one replayed. */
interface StreamItem {
  sequence: string;
  eventId: string;
  eventName: string;
  item: Record<string, unknown>;
  /** Set when this is a replay of a parked record. */
  parked?: ParkedRecord;
}

interface LoopOptions {
  /** Where records that keep failing are parked (the function's own store). */
  parked: ParkedRecordRepository;
  /** Attempts in this invocation before a record is parked (default 3). */
  attempts?: number;
  /** Pause before the second attempt, doubled for each further one (default 100 ms). */
  pauseMs?: number;
}

/** Failed items of one attempt: sequence number → error. */
export type Failures = Map<string, unknown>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 1000);

const sequenceOf = (record: DynamoDBRecord) => record.dynamodb?.SequenceNumber ?? '';

/** A record fresh from the stream, as an item holding `item`. */
function freshItem(record: DynamoDBRecord, item: Record<string, unknown>): StreamItem {
  const sequence = sequenceOf(record);
  return { sequence, eventId: record.eventID ?? sequence, eventName: record.eventName ?? 'INSERT', item };
}

function itemOf(record: DynamoDBRecord): StreamItem | undefined {
  const image = newImageOf(record);
  if (!image) return undefined;
  if (image.entity !== 'parkedRecord') return freshItem(record, image);
  const parked = ParkedRecord.parse(image);
  return { sequence: sequenceOf(record), eventId: parked.eventId, eventName: parked.eventName, item: parked.image, parked };
}

/**
 * Every stream consumer's loop. Records go to `handleBatch` (which answers the ones that failed); a record
 * that fails is tried again, with a pause, up to `attempts` times in this invocation. One that still fails is
 * parked in the table with its content and error, and the batch goes on: a poison record never holds up the
 * records behind it, and nothing is dropped. Only when parking itself fails (the store is away) is the record
 * reported as a batch item failure, for the event source to hand over again, for as long as it takes.
 * Replays of parked records come through the same loop and are released (or rescheduled) here.
 */
async function consumeRecords(
  event: DynamoDBStreamEvent,
  consumer: string,
  handleBatch: (items: StreamItem[]) => Promise<Failures>,
  options: LoopOptions,
): Promise<DynamoDBBatchResponse> {
  const parkedRecords = options.parked;
  const attempts = options.attempts ?? 3;
  /** Records to hand back to the event source: what could be neither handled nor parked. */
  const handBack: Failures = new Map();
  const items: StreamItem[] = [];
  /** Records that cannot even be read are parked as they came, for an operator to look at. */
  const unreadable: StreamItem[] = [];
  const failures: Failures = new Map();
  for (const record of event.Records) {
    try {
      const item = itemOf(record);
      if (item) items.push(item);
    } catch (error) {
      unreadable.push(freshItem(record, { newImage: record.dynamodb?.NewImage }));
      failures.set(sequenceOf(record), error);
    }
  }

  let pending = items;
  for (let attempt = 1; pending.length > 0; attempt++) {
    const verdict = await handleBatch(pending).catch((error: unknown) => new Map(pending.map((p) => [p.sequence, error])));
    for (const [sequence, error] of verdict) failures.set(sequence, error);
    for (const done of pending.filter((p) => !verdict.has(p.sequence) && p.parked))
      await settle(() => parkedRecords.release(done.parked!), consumer, done, handBack);
    pending = pending.filter((p) => verdict.has(p.sequence));
    if (pending.length === 0 || attempt >= attempts) break;
    await sleep((options.pauseMs ?? 100) * 2 ** (attempt - 1));
  }
  pending = [...unreadable, ...pending];

  const policy = parkedRetryPolicy();
  let parked = 0;
  for (const item of pending) {
    const error = message(failures.get(item.sequence));
    log.warn('record failed after its attempts; parking it for a later replay', {
      consumer,
      eventId: item.eventId,
      workspaceId: item.item.workspaceId,
      error,
    });
    const replayed = item.parked;
    const write = replayed
      ? () => parkedRecords.replayFailed(replayed, error, new Date(Date.now() + policy.delay(replayed.attempts + 1)).toISOString())
      : () =>
          parkedRecords.park({
            consumer,
            workspaceId: String(item.item.workspaceId ?? '-'),
            eventId: item.eventId,
            sequence: item.sequence,
            eventName: item.eventName,
            image: item.item,
            lastError: error,
            parkedAt: new Date().toISOString(),
            dueAt: new Date(Date.now() + policy.delay(1)).toISOString(),
          });
    if (await settle(write, consumer, item, handBack)) parked++;
  }
  countMetrics({ RecordsParked: parked, RecordsHandedBack: handBack.size }, { consumer });
  return { batchItemFailures: [...handBack.keys()].map((itemIdentifier) => ({ itemIdentifier })) };
}

/** A write about a record that must not be lost: when it fails, the record is handed over again. */
async function settle(write: () => Promise<unknown>, consumer: string, item: StreamItem, handBack: Failures): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    log.error('could not record the outcome of a record; it will be handed over again', { consumer, eventId: item.eventId, error });
    handBack.set(item.sequence, error);
    return false;
  }
}

/** Runs `step` on each item in order: an item whose step throws fails with its error, alone. */
async function eachAlone(items: StreamItem[], step: (item: StreamItem) => unknown): Promise<Failures> {
  const failures: Failures = new Map();
  for (const item of items) {
    try {
      await step(item);
    } catch (error) {
      failures.set(item.sequence, error);
    }
  }
  return failures;
}

/** The loop for consumers that handle one record at a time, in order. */
export const eachNewImage = (
  event: DynamoDBStreamEvent,
  consumer: string,
  handle: (item: Record<string, unknown>, record: { eventName: string }) => Promise<void>,
  options: LoopOptions,
) => consumeRecords(event, consumer, (items) => eachAlone(items, (item) => handle(item.item, { eventName: item.eventName })), options);

/**
 * The loop for consumers that hand a whole batch to their use case: each record's new image decoded (one that
 * cannot be fails on its own), the decoded ones handed over at once, and each the use case reports failed (by
 * its index among them) fails with its error.
 */
export const eachBatchOf = <T>(
  event: DynamoDBStreamEvent,
  consumer: string,
  decode: (item: Record<string, unknown>) => T,
  handle: (decoded: T[]) => Promise<Map<number, unknown>>,
  options: LoopOptions,
) =>
  consumeRecords(
    event,
    consumer,
    async (items) => {
      const decoded: { sequence: string; value: T }[] = [];
      const failures = await eachAlone(items, ({ item, sequence }) => decoded.push({ sequence, value: decode(item) }));
      const failed = await handle(decoded.map((d) => d.value));
      for (const [i, error] of failed) failures.set(decoded[i]!.sequence, error);
      return failures;
    },
    options,
  );
