import { fitIdentifier, type Row, type Value } from './rows';

/**
 * Column types: each new column takes the type of the first value that makes it, and keeps it. A later value
 * the column cannot hold goes to `<column>_<kind>` (e.g. `plan_string`, `price_float`) instead of failing
 * the load, that failing, to `<column>_string`; a value with nowhere to go is left out.
 */
export type Kind = 'string' | 'int' | 'float' | 'boolean' | 'timestamp';
export const SQL_TYPE: Record<Kind, string> = { string: 'text', int: 'bigint', float: 'numeric', boolean: 'boolean', timestamp: 'timestamptz' };

/** A table's columns: name → information_schema's data_type ('text', 'bigint', …). */
export type Columns = Map<string, string>;
/** The tables of a schema that a load touches: name → columns (absent: no such table yet). */
export type Layout = Map<string, Columns>;

/** PostgreSQL allows 1,600 columns a table; new keys stop making columns well before. */
const MAX_COLUMNS = 1500;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

function kindOf(value: Value): Kind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'int' : 'float';
  // Most text is no date: a look at the dashes first spares it the pattern.
  const maybeTime = value.length >= 16 && value.charCodeAt(4) === 45 && value.charCodeAt(7) === 45;
  return maybeTime && ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? 'timestamp' : 'string';
}

const ACCEPTS: Record<string, Kind[]> = {
  text: ['string', 'int', 'float', 'boolean', 'timestamp'],
  'character varying': ['string', 'int', 'float', 'boolean', 'timestamp'],
  bigint: ['int'],
  numeric: ['int', 'float'],
  'double precision': ['int', 'float'],
  boolean: ['boolean'],
  'timestamp with time zone': ['timestamp'],
  'timestamp without time zone': ['timestamp'],
};
const typeName: Record<Kind, string> = { string: 'text', int: 'bigint', float: 'numeric', boolean: 'boolean', timestamp: 'timestamp with time zone' };

/** The value as its column takes it: text columns the text of any value; PostgreSQL text has no NUL. */
function stored(value: Value, asText: boolean): Value {
  const out = asText && typeof value !== 'string' ? String(value) : value;
  return typeof out === 'string' && out.includes('\u0000') ? out.replaceAll('\u0000', '') : out;
}

/** Where each row's values go once the layout has the columns `additions` names (table → column → kind). */
export interface Placement {
  rows: Row[];
  additions: Map<string, Map<string, Kind>>;
}

/** Where a value of one kind goes in one table: the column, and whether it takes the value as text. */
type Slot = { column: string; asText: boolean } | null;

/** Places every value of `rows` in a column of `layout`, planning the tables and columns that are missing. */
export function place(rows: Row[], layout: Layout): Placement {
  const additions = new Map<string, Map<string, Kind>>();
  // Rows of a chunk share their keys: each (table, key, kind) is decided once.
  const slots = new Map<string, Map<string, Partial<Record<Kind, Slot>>>>();
  const slotOf = (table: string, column: string, kind: Kind): Slot => {
    const existing = layout.get(table);
    let added = additions.get(table);
    if (!added) additions.set(table, (added = new Map()));
    const typeOf = (name: string) => existing?.get(name) ?? (added.has(name) ? typeName[added.get(name)!] : undefined);
    // The column itself, else <column>_<kind>, else <column>_string; names beyond the first made only when needed.
    for (let attempt = 0; attempt < 3; attempt++) {
      const candidate = attempt === 0 ? column : fitIdentifier(`${column}_${attempt === 1 ? kind : 'string'}`);
      const newKind = attempt === 2 ? 'string' : kind;
      const dataType = typeOf(candidate);
      if (dataType === undefined) {
        if ((existing?.size ?? 0) + added.size >= MAX_COLUMNS) return null;
        added.set(candidate, newKind);
        return { column: candidate, asText: newKind === 'string' };
      }
      if (ACCEPTS[dataType]?.includes(kind)) return { column: candidate, asText: dataType === 'text' || dataType === 'character varying' };
    }
    return null;
  };
  // Each row's values are placed where they are (the rows are the caller's own, made for this load): a value
  // that moves to another column is moved after the pass over the row, one left without a column is removed.
  for (const row of rows) {
    let tableSlots = slots.get(row.table);
    if (!tableSlots) slots.set(row.table, (tableSlots = new Map()));
    const values = row.values;
    let moves: [string, Slot][] | undefined;
    for (const column in values) {
      const value = values[column]!;
      const kind = kindOf(value);
      let byKind = tableSlots.get(column);
      if (!byKind) tableSlots.set(column, (byKind = {}));
      let slot = byKind[kind];
      if (slot === undefined) slot = byKind[kind] = slotOf(row.table, column, kind);
      if (slot && slot.column === column) {
        const out = stored(value, slot.asText);
        if (out !== value) values[column] = out;
      } else (moves ??= []).push([column, slot]);
    }
    for (const [column, slot] of moves ?? []) {
      const value = values[column]!;
      delete values[column];
      if (slot) values[slot.column] = stored(value, slot.asText);
    }
  }
  const placed = rows;
  for (const table of new Set(rows.map((row) => row.table))) if (!additions.has(table) && !layout.has(table)) additions.set(table, new Map());
  for (const [table, added] of additions) if (added.size === 0 && layout.has(table)) additions.delete(table);
  return { rows: placed, additions };
}
