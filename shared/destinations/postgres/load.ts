import type { PoolClient as Client } from 'pg';
import { ident } from './connection';
import { copyFrom, copyText } from './copy';
import { USERS_TABLE, type Row, type Value } from './rows';
import { forgetLayout, prepare, STALE_LAYOUT, type LayoutKey } from './schema';

/**
 * Writing a chunk's rows, in one transaction: each table's with COPY, the fast path every chunk sent once
 * takes. Rows are keyed by the messageId (`id`): where one is there already (a chunk sent again), COPY stops,
 * and the transaction is done again with INSERT … ON CONFLICT (id) DO NOTHING. `users` keeps one row a user,
 * upserted from the chunk's identifies.
 */

/** A user's identifies of one chunk as one row: later values over earlier ones. */
function mergeUsers(rows: Row[]): Row[] {
  const byId = new Map<Value, Record<string, Value>>();
  for (const row of rows) byId.set(row.values.id!, { ...byId.get(row.values.id!), ...row.values });
  return [...byId.values()].map((values) => ({ table: USERS_TABLE, values }));
}

/** A row that is there already: COPY stops at it. */
const UNIQUE_VIOLATION = '23505';
const codeOf = (error: unknown) => (error as { code?: unknown }).code;

function columnsOf(rows: Row[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const column in row.values) seen.add(column);
  return [...seen];
}

async function copyRows(client: Client, name: string, rows: Row[]): Promise<number> {
  const names = columnsOf(rows);
  const data = copyText(
    names,
    rows.map((row) => row.values),
  );
  return copyFrom(client, `${name} (${names.map(ident).join(', ')})`, data);
}

/** INSERT … SELECT from the rows as one JSON array (json_populate_recordset), skipping or, for `users`, merging rows already there. */
async function insertRows(client: Client, name: string, table: string, rows: Row[]): Promise<number> {
  const columns = columnsOf(rows).map(ident);
  const into = `INSERT INTO ${name} AS t (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::${name}, $1::json)`;
  if (table !== USERS_TABLE) return (await client.query(`${into} ON CONFLICT (id) DO NOTHING`, [JSON.stringify(rows.map((row) => row.values))])).rowCount ?? 0;
  // A user's row takes the traits of identifies received no earlier than the one it holds (a resent old chunk changes nothing).
  const merged = columns.filter((column) => column !== '"id"').map((column) => `${column} = COALESCE(EXCLUDED.${column}, t.${column})`);
  const newer = columns.includes('"received_at"') ? ' WHERE t.received_at IS NULL OR EXCLUDED.received_at >= t.received_at' : '';
  const onConflict = merged.length ? `UPDATE SET ${merged.join(', ')}${newer}` : 'NOTHING';
  return (await client.query(`${into} ON CONFLICT (id) DO ${onConflict}`, [JSON.stringify(mergeUsers(rows).map((row) => row.values))])).rowCount ?? 0;
}

/** One transaction writing every table's rows; `copy`: with COPY where it can, else all with INSERT. */
async function write(client: Client, schema: string, byTable: Map<string, Row[]>, copy: boolean): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  await client.query('BEGIN');
  try {
    for (const [table, rows] of byTable) {
      const name = `${ident(schema)}.${ident(table)}`;
      counts[table] = copy && table !== USERS_TABLE ? await copyRows(client, name, rows) : await insertRows(client, name, table, rows);
    }
    await client.query('COMMIT');
    return counts;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/**
 * Loads the rows into `schema` (`key` names its kept layout, see schema.ts); the number of rows added or
 * updated per table.
 */
export async function loadRows(client: Client, key: LayoutKey, schema: string, rows: Row[]): Promise<Record<string, number>> {
  for (let attempt = 1; ; attempt++) {
    const placement = await prepare(client, key, schema, rows);
    const byTable = new Map<string, Row[]>();
    for (const row of placement.rows) {
      const tableRows = byTable.get(row.table) ?? [];
      tableRows.push(row);
      byTable.set(row.table, tableRows);
    }
    try {
      return await write(client, schema, byTable, true);
    } catch (error) {
      if (codeOf(error) === UNIQUE_VIOLATION) return write(client, schema, byTable, false);
      forgetLayout(key);
      if (!(placement.kept && attempt === 1 && STALE_LAYOUT.has(String(codeOf(error))))) throw error;
    }
  }
}

/** Deletes the users' rows from every table of the schema with a `user_id` column, and their `users` rows. */
export async function deleteUserRows(client: Client, schema: string, userIds: string[]): Promise<number> {
  const tables = await client.query<{ table_name: string }>(
    "SELECT table_name FROM information_schema.columns WHERE table_schema = $1 AND column_name = 'user_id' ORDER BY table_name",
    [schema],
  );
  const users = await client.query("SELECT 1 FROM information_schema.columns WHERE table_schema = $1 AND table_name = $2 AND column_name = 'id'", [
    schema,
    USERS_TABLE,
  ]);
  let deleted = 0;
  await client.query('BEGIN');
  try {
    for (const { table_name: table } of tables.rows) {
      deleted += (await client.query(`DELETE FROM ${ident(schema)}.${ident(table)} WHERE user_id = ANY($1)`, [userIds])).rowCount ?? 0;
    }
    if (users.rowCount) deleted += (await client.query(`DELETE FROM ${ident(schema)}.${ident(USERS_TABLE)} WHERE id = ANY($1)`, [userIds])).rowCount ?? 0;
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return deleted;
}
