import { defineDestinationCode, type ChunkEventVerdict, type ServerBatchResult } from '../types';
import { ONE_OFF, withPostgres, type PostgresTarget } from './connection';
import { deleteUserRows, loadRows } from './load';
import { rowsOf, unloadable, type Row } from './rows';
import type { PostgresConfig, postgresDefinition } from './definition';

const targetOf = (config: PostgresConfig): PostgresTarget => ({
  host: config.host,
  port: config.port ?? 5432,
  database: config.database,
  user: config.user,
  password: config.password,
  sslMode: config.sslMode ?? 'disable',
  caCertificate: config.caCertificate,
});
const schemaOf = (config: PostgresConfig) => config.schema ?? 'public';

/** The chunk's rows, and a verdict per event when some cannot be loaded (no messageId, a type with no table). */
function split(messages: Record<string, unknown>[], loadedAt: string): { rows: Row[]; problems: (string | undefined)[] } {
  const problems = messages.map(unloadable);
  const rows = messages.flatMap((message, i) => (problems[i] ? [] : rowsOf(message, loadedAt)));
  return { rows, problems };
}

function verdicts(problems: (string | undefined)[], rest: ChunkEventVerdict): ChunkEventVerdict[] | undefined {
  if (problems.every((problem) => problem === undefined)) return undefined;
  return problems.map((problem) => (problem ? { kind: 'refused', error: problem } : rest));
}

/**
 * PostgreSQL as a warehouse: the data plane loads each chunk itself, a table per event type and per track
 * event (see rows.ts), columns added as keys appear (columns.ts), rows keyed by messageId (load.ts).
 * Connection settings and the password are in the configuration, since user deletion gets only that.
 */
export const postgres = defineDestinationCode<typeof postgresDefinition>({
  delivery: 'server',
  serverBatch: {
    maxEvents: 1000,
    async deliver(messages, config, context): Promise<ServerBatchResult> {
      const { rows, problems } = split(messages, new Date().toISOString());
      if (rows.length === 0) {
        const error = problems.find(Boolean) ?? 'no events';
        return { status: 400, response: '', error, retryable: false, verdicts: verdicts(problems, { kind: 'refused', error }) };
      }
      const owner = { workspaceId: context.workspaceId, destinationId: context.destinationId };
      const layoutKey = { ...owner, place: `${config.host}:${config.port ?? 5432}/${config.database}/${schemaOf(config)}` };
      const done = await withPostgres(owner, targetOf(config), (client) => loadRows(client, layoutKey, schemaOf(config), rows));
      if (done.ok)
        return { status: 200, response: { schema: schemaOf(config), rows: done.value }, retryable: false, verdicts: verdicts(problems, { kind: 'delivered' }) };
      const rest: ChunkEventVerdict = done.retryable ? { kind: 'retryable', error: done.error } : { kind: 'refused', error: done.error };
      return { status: done.status, response: '', error: done.error, retryable: done.retryable, verdicts: verdicts(problems, rest) };
    },
  },
  /** The test interface shows the rows the event becomes, each with its table (the columns as loaded). */
  preview(message) {
    const problem = unloadable(message);
    if (problem) return { ok: false, error: problem };
    return { ok: true, payload: rowsOf(message, new Date().toISOString()).map((row) => ({ table: row.table, columns: row.values })) };
  },
  async deleteUsers(users, config) {
    const done = await withPostgres(ONE_OFF, targetOf(config), (client) =>
      deleteUserRows(
        client,
        schemaOf(config),
        users.map((user) => user.userId),
      ),
    );
    return done.ok ? { status: 'completed', detail: `${done.value} rows deleted` } : { status: 'failed', error: done.error, retryable: done.retryable };
  },
});
