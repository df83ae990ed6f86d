import { gzipSync } from 'node:zlib';
import { BatchGetCommand, GetCommand, PutCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import type { DeliverySample } from '../domain/delivery/records';
import { DELIVERY_TTL_SECONDS } from './delivery-items';
import { keys } from './keys';
import { isConditionFailure, type TableClient, type TransactItem } from './table-client';

/** A run of one destination's batches. */
export interface RunKey {
  workspaceId: string;
  destinationId: string;
  runId: string;
}

/** How many samples of its batches a run keeps for the live-events view (its last ones). */
const RUN_SAMPLES = 20;

const runKey = (run: RunKey) => `${run.workspaceId}#${run.destinationId}#${run.runId}`;
const item = (run: RunKey, status: 'done' | 'abandoned') => ({
  ...keys.deliveryRun(run.workspaceId, run.destinationId, run.runId),
  entity: 'deliveryRun',
  status,
  expiresAt: Math.floor(Date.now() / 1000) + DELIVERY_TTL_SECONDS,
});

/**
 * Runs of batches finished together (a run's id is a ULID: the live-events view reads the newest). Each batch of a run is written finished (`finishing`, with the run's id)
 * on its own, a plain write; then one transaction writes the run's record beside the destination's counters and
 * funnel, which is what counts them all: a batch is done once its run's record says so. A takeover of a batch
 * whose run has no record (its process died in between) first writes the record as abandoned, so that the run's
 * transaction, should it still come, fails and counts nothing (its owner then finishes what is still its own one
 * batch at a time); the batch is counted once either way.
 */
export class DeliveryRuns {
  constructor(private readonly store: TableClient) {}

  /**
   * The transaction item that records a run as done, with the samples the live-events view shows of it (its
   * batches keep none of their own): refused if it was ended as abandoned first.
   */
  done(run: RunKey, finished: { at: string; samples: DeliverySample[] }): TransactItem {
    const samples = finished.samples.slice(-RUN_SAMPLES);
    return {
      Put: {
        TableName: this.store.table,
        Item: { ...item(run, 'done'), finishedAt: finished.at, samples: gzipSync(JSON.stringify(samples)) },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    };
  }

  /** Ends a run as abandoned unless it is done: false when it is done (its batches are counted). */
  async abandon(run: RunKey): Promise<boolean> {
    try {
      await this.store.doc.send(new PutCommand({ TableName: this.store.table, Item: item(run, 'abandoned'), ConditionExpression: 'attribute_not_exists(pk)' }));
      return true;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    const { Item } = await this.store.doc.send(
      new GetCommand({ TableName: this.store.table, Key: keys.deliveryRun(run.workspaceId, run.destinationId, run.runId), ConsistentRead: true }),
    );
    return Item?.status !== 'done';
  }

  /** Which of the runs are done, strongly consistent: a round trip per hundred runs. */
  async doneOf(runs: RunKey[]): Promise<Set<string>> {
    const distinct = [...new Map(runs.map((run) => [runKey(run), run])).values()];
    const done = new Set<string>();
    for (let i = 0; i < distinct.length; i += 100) {
      let request: Record<string, unknown>[] | undefined = distinct
        .slice(i, i + 100)
        .map((run) => keys.deliveryRun(run.workspaceId, run.destinationId, run.runId));
      while (request && request.length > 0) {
        const answer: BatchGetCommandOutput = await this.store.doc.send(
          new BatchGetCommand({ RequestItems: { [this.store.table]: { Keys: request, ConsistentRead: true } } }),
        );
        for (const found of answer.Responses?.[this.store.table] ?? []) if (found.status === 'done') done.add(String(found.sk).slice('RUN#'.length));
        request = answer.UnprocessedKeys?.[this.store.table]?.Keys;
      }
    }
    return done;
  }
}
