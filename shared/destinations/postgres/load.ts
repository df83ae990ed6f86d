import type { PoolClient as Client } from 'pg';
import { place, SQL_TYPE, type Kind, type Layout, type Placement } from './columns';
import { ident } from './connection';
import { copyFrom, copyText } from './copy';
import { USERS_TABLE, type Row, type Value } from './rows';

/**
 * Loading a chunk's rows: the columns they need are added first (under a lock, so two loads never race to
 * give a column two types), then every table's rows go in with one INSERT … SELECT from a JSON array
 * (json_populate_recordset: one parameter, parsed by the server), all in one transaction. Rows are keyed by
 * the messageId (`id`), so a resent chunk adds nothing; `users` keeps one row a user, updated by newer identifies.
 */

/** The columns of `tables` in `schema` as they are now, and whether the schema exists. */
async function readLayout(client: Client, schema: string, tables: string[]): Promise<{ schemaExists: boolean; layout: Layout }> {
  const [namespace, columns] = await Promise.all([
    client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema]),
    client.query<{ table_name: string; column_name: string; data_type: string }>(
      'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2)',
      [schema, tables],
    ),
  ]);
  const layout: Layout = new Map();
  for (const { table_name: table, column_name: column, data_type: type } of columns.rows) {
    if (!layout.has(table)) layout.set(table, new Map());
    layout.get(table)!.set(column, type);
  }
  return { schemaExists: (namespace.rowCount ?? 0) > 0, layout };
}

async function addColumns(client: Client, schema: string, additions: Map<string, Map<string, Kind>>, layout: Layout): Promise<void> {
  for (const [table, columns] of additions) {
    const name = `${ident(schema)}.${ident(table)}`;
    if (!layout.has(table)) await client.query(`CREATE TABLE IF NOT EXISTS ${name} (id text PRIMARY KEY)`);
    const added = [...columns].filter(([column]) => column !== 'id');
    if (added.length === 0) continue;
    await client.query(`ALTER TABLE ${name} ${added.map(([column, kind]) => `ADD COLUMN IF NOT EXISTS ${ident(column)} ${SQL_TYPE[kind]}`).join(', ')}`);
  }
}

/**
 * Places the rows in the schema's columns, adding the missing tables and columns first. Columns never
 * change type once made, so a placement made under the lock holds until the rows are in.
 */
async function prepare(client: Client, schema: string, rows: Row[]): Promise<Placement> {
  const tables = [...new Set(rows.map((row) => row.table))];
  const first = place(rows, (await readLayout(client, schema, tables)).layout);
  if (first.additions.size === 0) return first;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`weir.schema.${schema}`]);
    const { schemaExists, layout } = await readLayout(client, schema, tables);
    if (!schemaExists) await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
    const placement = place(rows, layout);
    await addColumns(client, schema, placement.additions, layout);
    await client.query('COMMIT');
    return placement;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** A user's identifies of one chunk as one row: later values over earlier ones. */
function mergeUsers(rows: Row[]): Row[] {
  const byId = new Map<Value, Record<string, Value>>();
  for (const row of rows) byId.set(row.values.id!, { ...byId.get(row.values.id!), ...row.values });
  return [...byId.values()].map((values) => ({ table: USERS_TABLE, values }));
}

/** A resent chunk's rows are there already: COPY stops at the first, and the rows go in with ON CONFLICT instead. */
const UNIQUE_VIOLATION = '23505';

async function insert(client: Client, schema: string, table: string, rows: Row[]): Promise<number> {
  const name = `${ident(schema)}.${ident(table)}`;
  const seen = new Set<string>();
  for (const row of rows) for (const column in row.values) seen.add(column);
  const names = [...seen];
  const columns = names.map(ident);
  if (table !== USERS_TABLE) {
    // COPY first (the fast path, taken by every chunk sent once), in a savepoint so a refused COPY leaves nothing.
    await client.query('SAVEPOINT copy_rows');
    try {
      const copied = await copyFrom(
        client,
        `${name} (${columns.join(', ')})`,
        copyText(
          names,
          rows.map((row) => row.values),
        ),
      );
      await client.query('RELEASE SAVEPOINT copy_rows');
      return copied;
    } catch (error) {
      if ((error as { code?: string }).code !== UNIQUE_VIOLATION) throw error;
      await client.query('ROLLBACK TO SAVEPOINT copy_rows');
    }
  }
  const into = `INSERT INTO ${name} AS t (${columns.join(', ')}) SELECT ${columns.join(', ')} FROM json_populate_recordset(NULL::${name}, $1::json)`;
  if (table !== USERS_TABLE) return (await client.query(`${into} ON CONFLICT (id) DO NOTHING`, [JSON.stringify(rows.map((row) => row.values))])).rowCount ?? 0;
  // A user's row takes the traits of identifies received no earlier than the one it holds (a resent old chunk changes nothing).
  const merged = columns.filter((column) => column !== '"id"').map((column) => `${column} = COALESCE(EXCLUDED.${column}, t.${column})`);
  const newer = columns.includes('"received_at"') ? ' WHERE t.received_at IS NULL OR EXCLUDED.received_at >= t.received_at' : '';
  const onConflict = merged.length ? `UPDATE SET ${merged.join(', ')}${newer}` : 'NOTHING';
  return (await client.query(`${into} ON CONFLICT (id) DO ${onConflict}`, [JSON.stringify(mergeUsers(rows).map((row) => row.values))])).rowCount ?? 0;
}

/** Loads the rows (see the comment at the top); the number of rows added or updated per table. */
export async function loadRows(client: Client, schema: string, rows: Row[]): Promise<Record<string, number>> {
  const placement = await prepare(client, schema, rows);
  const byTable = new Map<string, Row[]>();
  for (const row of placement.rows) {
    const tableRows = byTable.get(row.table) ?? [];
    tableRows.push(row);
    byTable.set(row.table, tableRows);
  }
  const counts: Record<string, number> = {};
  await client.query('BEGIN');
  try {
    for (const [table, tableRows] of byTable) counts[table] = await insert(client, schema, table, tableRows);
    await client.query('COMMIT');
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
  return counts;
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
