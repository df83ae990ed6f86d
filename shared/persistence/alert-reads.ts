import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { encodeTime } from 'ulid';
import type { AlertReads } from '../domain/alerts/ports';
import { readCounters } from './counters';
import { keys } from './keys';
import type { TableClient } from './table-client';

/**
 * What alert conditions read: a destination's outcome counters (its sharded counters, summed), and whether a
 * source stored anything lately (one key of its archive: request ids sort by time).
 */
export class AlertCounterReads implements AlertReads {
  constructor(private readonly store: TableClient) {}

  async destinationCounters(workspaceId: string, destinationId: string) {
    const counters = (await readCounters(this.store, keys.destinationStatsShards(workspaceId, destinationId))) ?? {};
    const n = (name: string) => Number(counters[name] ?? 0);
    return { delivered: n('delivered'), aborted: n('aborted'), retrying: n('retrying') };
  }

  async sourceStoredSince(workspaceId: string, sourceId: string, sinceMs: number): Promise<boolean> {
    const { Items = [] } = await this.store.doc.send(
      new QueryCommand({
        TableName: this.store.table,
        KeyConditionExpression: 'pk = :pk AND sk >= :since',
        ExpressionAttributeValues: { ':pk': keys.ingest(workspaceId, sourceId, '', 0).pk, ':since': encodeTime(Math.max(0, sinceMs), 10) },
        Limit: 1,
      }),
    );
    return Items.length > 0;
  }
}
