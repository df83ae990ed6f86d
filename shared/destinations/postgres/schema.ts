import type { PoolClient as Client } from 'pg';
import { place, SQL_TYPE, type Kind, type Layout, type Placement } from './columns';
import { ident } from './connection';
import { TenantCache, type DestinationScope } from '../../tenant-cache';
import type { Row } from './rows';

/**
 * The tables and columns a load writes to. The layout a schema's loads found is kept in memory, so a chunk
 * of keys already seen reads nothing first; anything new is looked up, and added, under an advisory lock of
 * the schema, with the layout read again under it, so two loads never race to give a column two types.
 * Columns never change type once made; should someone drop or change one, the load fails on the kept layout
 * and is tried once more on a fresh one (see `STALE_LAYOUT`).
 */

/** Names a kept layout: the destination's and the place (server, database, schema) it loads into. */
export type LayoutKey = DestinationScope & { place: string };

const LAYOUTS = new TenantCache<LayoutKey, Layout>({ max: 100 });

/** What a load on an out-of-date layout fails with: no such column or table, a value the column's type refuses. */
export const STALE_LAYOUT = new Set(['42703', '42P01', '42804', '22P02', '22007', '22008', '22003']);

export const forgetLayout = (key: LayoutKey) => LAYOUTS.delete(key);

/** The columns of `tables` in `schema` as they are now (tables that do not exist are absent). */
async function readLayout(client: Client, schema: string, tables: string[]): Promise<Layout> {
  const columns = await client.query<{ table_name: string; column_name: string; data_type: string }>(
    'SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = $1 AND table_name = ANY($2)',
    [schema, tables],
  );
  const layout: Layout = new Map();
  for (const { table_name: table, column_name: column, data_type: type } of columns.rows) {
    if (!layout.has(table)) layout.set(table, new Map());
    layout.get(table)!.set(column, type);
  }
  return layout;
}

/** The kept layout when it knows every table, else one read now (and kept). */
async function knownLayout(client: Client, key: LayoutKey, schema: string, tables: string[]): Promise<{ layout: Layout; kept: boolean }> {
  const kept = LAYOUTS.get(key);
  if (kept && tables.every((table) => kept.has(table))) return { layout: kept, kept: true };
  const layout = await readLayout(client, schema, tables);
  LAYOUTS.set(key, new Map([...(kept ?? []), ...layout]));
  return { layout, kept: false };
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
 * Places the rows in the schema's columns (`key` names the schema's kept layout), adding the missing schema,
 * tables and columns first; `kept` says whether the placement rests on the kept layout.
 */
export async function prepare(client: Client, key: LayoutKey, schema: string, rows: Row[]): Promise<Placement & { kept: boolean }> {
  const tables = [...new Set(rows.map((row) => row.table))];
  const known = await knownLayout(client, key, schema, tables);
  const first = place(rows, known.layout);
  if (first.additions.size === 0) return { ...first, kept: known.kept };
  forgetLayout(key);
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`weir.schema.${schema}`]);
    const layout = await readLayout(client, schema, tables);
    if ((await client.query('SELECT 1 FROM pg_namespace WHERE nspname = $1', [schema])).rowCount === 0) {
      await client.query(`CREATE SCHEMA IF NOT EXISTS ${ident(schema)}`);
    }
    const placement = place(rows, layout);
    await addColumns(client, schema, placement.additions, layout);
    await client.query('COMMIT');
    return { ...placement, kept: false };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
