import { gunzipSync, gzipSync } from 'node:zlib';
import type { BatchPosition, DeliverySample } from '../domain/delivery/records';
import { DELIVERY_TTL_SECONDS, runKey } from './delivery-items';
import { queryEach } from './across-partitions';
import { keys } from './keys';
import { getEach, getItem, putIf, putIfAbsent, type TableClient, type TransactItem } from './table-client';

/** A run of one destination's batches. */
interface RunKey {
  workspaceId: string;
  destinationId: string;
  runId: string;
}

/**
 * A batch finished in its run's record alone (it has no item of its own): where it ended and its trail, for
 * whoever looks for it later (a stream record handed over again, the scheduler taking the run over, the audit).
 */
interface ListedBatch {
  requestId: string;
  part: number;
  position: BatchPosition;
  trail: string;
}

/** How many samples of its batches a run keeps for the live-events view (its last ones). */
const RUN_SAMPLES = 20;

/** The most a run's record lists, gzipped: past it, the run's batches are written finished one by one. */
export const MAX_LISTED_BYTES = 64 * 1024;

export const listedKey = (batch: { requestId: string; part: number }) => `${batch.requestId}#${batch.part}`;

/** A run's listed batches as its record keeps them: gzipped JSON of `[requestId, part, progress, output, trail]`. */
export const encodeListed = (listed: ListedBatch[]): Uint8Array =>
  gzipSync(JSON.stringify(listed.map((b) => [b.requestId, b.part, b.position.progress, b.position.output, b.trail])));

function decodeListed(value: unknown): ListedBatch[] {
  if (!(value instanceof Uint8Array)) return [];
  const rows = JSON.parse(gunzipSync(value).toString('utf8')) as [string, number, number, number, string][];
  return rows.map(([requestId, part, progress, output, trail]) => ({ requestId, part, position: { progress, output }, trail }));
}

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
  done(run: RunKey, finished: { at: string; samples: DeliverySample[]; listed?: Uint8Array }): TransactItem {
    const samples = finished.samples.slice(-RUN_SAMPLES);
    const done = {
      ...item(run, 'done'),
      finishedAt: finished.at,
      samples: gzipSync(JSON.stringify(samples)),
      ...(finished.listed && { listed: finished.listed }),
    };
    return { Put: putIfAbsent(this.store.table, done) };
  }

  /** Ends a run as abandoned unless it is done: false when it is done (its batches are counted). */
  async abandon(run: RunKey): Promise<boolean> {
    if (await putIf(this.store, putIfAbsent(this.store.table, item(run, 'abandoned')))) return true;
    const found = await getItem(this.store, keys.deliveryRun(run.workspaceId, run.destinationId, run.runId), { ConsistentRead: true });
    return found?.status !== 'done';
  }

  /** Which of the runs are done (by `runKey`), strongly consistent: a round trip per hundred runs. */
  async doneOf(runs: RunKey[]): Promise<Set<string>> {
    const found = await this.read(runs, '#status');
    return new Set([...found].filter(([, record]) => record.status === 'done').map(([key]) => key));
  }

  /**
   * The batches the done runs among `runs` list (finished in their record alone), by run (`runKey`) and batch
   * (`listedKey`), strongly consistent: a round trip per hundred runs.
   */
  async listedIn(runs: RunKey[]): Promise<Map<string, Map<string, ListedBatch>>> {
    const listed = new Map<string, Map<string, ListedBatch>>();
    for (const [key, found] of await this.read(runs, '#status, listed'))
      if (found.status === 'done') listed.set(key, new Map(decodeListed(found.listed).map((b) => [listedKey(b), b])));
    return listed;
  }

  /**
   * The batches listed by a destination's done runs from `since` on (a ULID's time, the runs' ids begin with
   * one): the audit's read, across the family's partitions, never the per-event path.
   */
  async listedSince(workspaceId: string, destinationId: string, since: string): Promise<Map<string, ListedBatch>> {
    const items = await queryEach(this.store, keys.deliveryRunPartitions(workspaceId, destinationId), {
      KeyConditionExpression: 'pk = :pk AND sk >= :since',
      FilterExpression: '#status = :done AND attribute_exists(listed)',
      ProjectionExpression: 'listed',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':since': `RUN#${since}`, ':done': 'done' },
      ConsistentRead: true,
    });
    return new Map(items.flatMap((found) => decodeListed(found.listed)).map((b) => [listedKey(b), b]));
  }

  /** The records of the runs, by `runKey`, strongly consistent: a round trip per hundred runs. */
  private async read(runs: RunKey[], projection: string): Promise<Map<string, Record<string, unknown>>> {
    const byKey = new Map(
      runs.map((run) => {
        const key = keys.deliveryRun(run.workspaceId, run.destinationId, run.runId);
        return [`${key.pk}|${key.sk}`, { run, key }];
      }),
    );
    const found = new Map<string, Record<string, unknown>>();
    const items = await getEach(
      this.store,
      [...byKey.values()].map(({ key }) => key),
      { ConsistentRead: true, ProjectionExpression: `pk, sk, ${projection}`, ExpressionAttributeNames: { '#status': 'status' } },
    );
    for (const item of items) {
      const asked = byKey.get(`${String(item.pk)}|${String(item.sk)}`);
      if (asked) found.set(runKey(asked.run), item);
    }
    return found;
  }
}
