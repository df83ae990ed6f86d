import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import type { DynamoDBStreamsClient } from '@aws-sdk/client-dynamodb-streams';
import { DescribeStreamCommand, GetRecordsCommand, GetShardIteratorCommand, type _Record } from '@aws-sdk/client-dynamodb-streams';
import type { DynamoDBBatchResponse, DynamoDBRecord, DynamoDBStreamEvent } from 'aws-lambda';
import { componentLogger } from '../../shared/ops/logger';
import { matchesPattern } from './event-filter';

const log = componentLogger('streams');

/**
 * Feeds the table's stream into the stream consumers the way a Lambda event source mapping does: records
 * in Lambda's shape, the consumer's filters applied, batches of `batchSize`, partial batch failures retried
 * from the first failed record until they succeed (as a mapping with unlimited retries does). Checkpoints
 * persist across restarts when a checkpoint file is given, and never pass a record not fully handled.
 */
export interface PollerConsumer {
  name: string;
  filters: Record<string, unknown>[];
  batchSize: number;
  handler: (event: DynamoDBStreamEvent) => Promise<DynamoDBBatchResponse | void>;
}

export interface StreamPoller {
  stop(): Promise<void>;
  /** Resolves once every record written so far has been offered to the consumers. */
  drain(): Promise<void>;
}

/** 100 ms, 200 ms, 400 ms … at most 5 s between attempts while the store (or a consumer) is failing. */
const backoff = (failures: number) => Math.min(5_000, 100 * 2 ** Math.max(0, failures - 1));

/** The checkpoints kept in `file`: none when there is no file yet; a file that cannot be read stops the start. */
function loadCheckpoints(file: string | undefined): Record<string, string> {
  if (!file || !existsSync(file)) return {};
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  } catch (error) {
    throw new Error(
      `the stream checkpoints in ${file} cannot be read (${(error as Error).message}): restore or remove the file (without it, the stream is handed over again from its oldest record)`,
      { cause: error },
    );
  }
}

/**
 * Checkpoints are written whole or not at all (a new file renamed over the old): a process killed while
 * writing them leaves the previous checkpoints, never a cut file that the next start could not read.
 */
function saveCheckpoints(file: string, checkpoints: Record<string, string>): void {
  const written = `${file}.${process.pid}.tmp`;
  writeFileSync(written, JSON.stringify(checkpoints));
  renameSync(written, file);
}

/** GetRecords returns SDK shapes; Lambda hands consumers epoch seconds and the stream ARN. */
function toLambdaRecord(record: _Record, streamArn: string): DynamoDBRecord {
  const created = record.dynamodb?.ApproximateCreationDateTime;
  return {
    eventID: record.eventID,
    eventName: record.eventName as DynamoDBRecord['eventName'],
    eventVersion: record.eventVersion,
    eventSource: 'aws:dynamodb',
    awsRegion: record.awsRegion,
    eventSourceARN: streamArn,
    dynamodb: {
      ...(record.dynamodb as DynamoDBRecord['dynamodb']),
      ApproximateCreationDateTime: created instanceof Date ? Math.floor(created.getTime() / 1000) : (created as number | undefined),
    },
  };
}

export function startStreamPoller(options: {
  client: DynamoDBStreamsClient;
  streamArn: string;
  consumers: PollerConsumer[];
  checkpointFile?: string;
  intervalMs?: number;
}): StreamPoller {
  const { client, streamArn, consumers, checkpointFile, intervalMs = 200 } = options;
  const checkpoints = loadCheckpoints(checkpointFile);
  const iterators = new Map<string, string | undefined>();
  const closed = new Set<string>();
  let running = true;
  /** Waiters of drain(): each resolves after an idle round that started after it was called. */
  let idleWaiters: { after: number; resolve: () => void }[] = [];
  let round = 0;
  let wake: (() => void) | undefined;
  /** A pause that stop() cuts short. */
  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wake = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  async function shards(): Promise<string[]> {
    const { StreamDescription } = await client.send(new DescribeStreamCommand({ StreamArn: streamArn }));
    return (StreamDescription?.Shards ?? []).map((s) => s.ShardId ?? '').filter(Boolean);
  }

  async function iteratorFor(shardId: string): Promise<string | undefined> {
    const after = checkpoints[shardId];
    const { ShardIterator } = await client.send(
      new GetShardIteratorCommand({
        StreamArn: streamArn,
        ShardId: shardId,
        ...(after ? { ShardIteratorType: 'AFTER_SEQUENCE_NUMBER', SequenceNumber: after } : { ShardIteratorType: 'TRIM_HORIZON' }),
      }),
    );
    return ShardIterator;
  }

  /**
   * Hands records to a consumer batch by batch; false when stopping cut it short (nothing is checkpointed
   * then). A batch that fails is handed over again from its first failed record, with a growing pause, for
   * as long as it takes: a record is never skipped. A record that fails for itself is parked by the
   * consumer's own loop (see shared/streams), so what keeps failing here is the store, and waiting is right.
   */
  async function deliver(consumer: PollerConsumer, records: DynamoDBRecord[]): Promise<boolean> {
    for (let start = 0; start < records.length; start += consumer.batchSize) {
      let batch = records.slice(start, start + consumer.batchSize);
      for (let failures = 0; batch.length > 0;) {
        if (!running) return false;
        let failedFrom = -1;
        try {
          const response = await consumer.handler({ Records: batch });
          const failed = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
          if (failed.size > 0)
            failedFrom = Math.max(
              0,
              batch.findIndex((r) => failed.has(r.dynamodb?.SequenceNumber ?? '')),
            );
        } catch (error) {
          log.error('consumer threw', { consumer: consumer.name, error });
          failedFrom = 0;
        }
        if (failedFrom < 0) break;
        batch = batch.slice(failedFrom);
        failures++;
        log.warn('records handed over again after a pause', { consumer: consumer.name, records: batch.length, failures });
        await pause(backoff(failures));
      }
    }
    return true;
  }

  async function pollOnce(): Promise<boolean> {
    let sawRecords = false;
    for (const shardId of await shards()) {
      if (closed.has(shardId)) continue;
      if (!iterators.has(shardId)) iterators.set(shardId, await iteratorFor(shardId));
      const iterator = iterators.get(shardId);
      if (!iterator) continue;
      let result;
      try {
        result = await client.send(new GetRecordsCommand({ ShardIterator: iterator, Limit: 1000 }));
      } catch (error) {
        if ((error as Error).name === 'ExpiredIteratorException') {
          iterators.delete(shardId);
          continue;
        }
        throw error;
      }
      const records = (result.Records ?? []).map((r) => toLambdaRecord(r, streamArn));
      if (records.length > 0) {
        sawRecords = true;
        for (const consumer of consumers) {
          const matching = records.filter((r) => consumer.filters.some((pattern) => matchesPattern(pattern, r)));
          // Stopped mid-way: no checkpoint, so the next start hands these records over again; consumers are
          // idempotent, so what was done is skipped and the rest is done.
          if (matching.length > 0 && !(await deliver(consumer, matching))) return sawRecords;
        }
        const last = records.at(-1)?.dynamodb?.SequenceNumber;
        if (last) checkpoints[shardId] = last;
        if (checkpointFile) saveCheckpoints(checkpointFile, checkpoints);
      }
      if (result.NextShardIterator) iterators.set(shardId, result.NextShardIterator);
      else closed.add(shardId);
    }
    return sawRecords;
  }

  const loop = (async () => {
    let failures = 0;
    while (running) {
      const started = ++round;
      let idle: boolean;
      try {
        idle = !(await pollOnce());
        failures = 0;
      } catch (error) {
        // The store is away: read nothing, skip nothing, and ask again after a growing pause.
        failures++;
        log.warn('stream read failed', { failures, error });
        if (running) await pause(backoff(failures));
        continue;
      }
      if (idle) {
        idleWaiters.filter((w) => w.after < started).forEach((w) => w.resolve());
        idleWaiters = idleWaiters.filter((w) => w.after >= started);
        if (running) await pause(intervalMs);
      }
    }
  })();

  return {
    async stop() {
      running = false;
      wake?.();
      await loop;
      idleWaiters.forEach((w) => w.resolve());
    },
    drain() {
      return new Promise((resolve) => idleWaiters.push({ after: round, resolve }));
    },
  };
}
