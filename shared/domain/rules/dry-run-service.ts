import * as z from 'zod';
import type { CatalogRepository } from '../catalog/ports';
import { NotFoundError } from '../errors';
import type { IngestRepository } from '../ingestion/ports';
import type { SuppressionIndex } from '../regulations/suppression-index';
import { checkPatterns, dryRun } from './rules';
import { Rules } from './schemas';

/** A dry run's body: the rules to try (absent: the connection's own) on the last `limit` events of its source. */
export const DryRunBody = z.strictObject({
  rules: z.optional(Rules).describe('the rules to try; absent, the connection’s stored rules'),
  limit: z.number({ error: 'must be a number' }).int('must be a whole number').min(1, 'must be at least 1').max(1000, 'must be at most 1000').default(100),
});

export const DryRunResult = z.object({
  events: z.number().int().describe('how many recent events of the source the rules ran on'),
  passed: z.number().int(),
  errors: z.number().int().describe('events a rule would fail (none: a dry run never lacks a salt)'),
  rules: z.array(z.object({ index: z.number().int(), label: z.string(), type: z.string(), stopped: z.number().int() })),
});

/**
 * How many of a source's recent events each rule of a connection would stop (nothing is sent or counted).
 * Suppressed users' events are left out, as delivery leaves them out before any rule.
 */
export class RulesDryRun {
  constructor(
    private readonly catalog: Pick<CatalogRepository, 'getConnection'>,
    private readonly ingest: Pick<IngestRepository, 'recent'>,
    private readonly suppression: Pick<SuppressionIndex, 'unsuppressed'>,
  ) {}

  async run(workspaceId: string, connectionId: string, body: z.output<typeof DryRunBody>): Promise<z.output<typeof DryRunResult>> {
    if (body.rules) checkPatterns(body.rules, 'body.rules');
    const connection = await this.catalog.getConnection(workspaceId, connectionId);
    if (!connection) throw NotFoundError.of('connection', connectionId);
    const events: Record<string, unknown>[] = [];
    let after: string | undefined;
    for (let more = true; more && events.length < body.limit;) {
      const page = await this.ingest.recent(workspaceId, connection.sourceId, 10, after);
      for (const part of page.parts) events.push(...part.events.slice().reverse());
      after = page.parts.at(-1)?.cursor;
      more = page.more && after !== undefined;
    }
    const delivered = await this.suppression.unsuppressed(workspaceId, connection.sourceId, events);
    const recent = delivered.slice(0, body.limit);
    return { events: recent.length, ...dryRun(body.rules ?? connection.rules, recent) };
  }
}
