import { encodeTime } from 'ulid';
import type { AlertReads } from '../domain/alerts/ports';
import { readCounters } from './counters';
import { keys } from './keys';
import { ingestPartitionsOf, queryAcrossShards } from './ingest-reads';
import type { TableClient } from './table-client';

/**
 * What alert conditions read: a destination's outcome counters (its sharded counters, summed), and whether a
 * source stored anything lately (one key of each of its archive's partitions: request ids sort by time).
 */
export class AlertCounterReads implements AlertReads {
  constructor(private readonly store: TableClient) {}

  async destinationCounters(workspaceId: string, destinationId: string) {
    const counters = (await readCounters(this.store, keys.destinationStatsShards(workspaceId, destinationId))) ?? {};
    const n = (name: string) => Number(counters[name] ?? 0);
    return { delivered: n('delivered'), aborted: n('aborted'), retrying: n('retrying') };
  }

  async sourceStoredSince(workspaceId: string, sourceId: string, sinceMs: number): Promise<boolean> {
    const partitions = await ingestPartitionsOf(this.store, workspaceId, sourceId);
    const { items } = await queryAcrossShards(this.store, partitions, { from: encodeTime(Math.max(0, sinceMs), 10), limit: 1 });
    return items.length > 0;
  }
}
