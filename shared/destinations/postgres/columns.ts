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
export const MAX_COLUMNS = 1500;

const ISO_TIME = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}(:?\d{2})?)$/;

export function kindOf(value: Value): Kind {
  if (typeof value === 'boolean') return 'boolean';
  if (typeof value === 'number') return Number.isSafeInteger(value) ? 'int' : 'float';
  return ISO_TIME.test(value) && !Number.isNaN(Date.parse(value)) ? 'timestamp' : 'string';
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

/** The value as JSON gives it to its column: text columns take the text of any value; PostgreSQL text has no NUL. */
function stored(value: Value, dataType: string): Value {
  const asText = dataType === 'text' || dataType === 'character varying';
  const out = asText && typeof value !== 'string' ? String(value) : value;
  return typeof out === 'string' ? out.replaceAll('\u0000', '') : out;
}

/** Where each row's values go once the layout has the columns `additions` names (table → column → kind). */
export interface Placement {
  rows: Row[];
  additions: Map<string, Map<string, Kind>>;
}

/** Places every value of `rows` in a column of `layout`, planning the tables and columns that are missing. */
export function place(rows: Row[], layout: Layout): Placement {
  const additions = new Map<string, Map<string, Kind>>();
  const placed = rows.map((row) => {
    const existing = layout.get(row.table);
    const added = additions.get(row.table) ?? new Map<string, Kind>();
    additions.set(row.table, added);
    const typeOf = (column: string) => existing?.get(column) ?? (added.has(column) ? typeName[added.get(column)!] : undefined);
    const values: Record<string, Value> = {};
    for (const [column, value] of Object.entries(row.values)) {
      const kind = kindOf(value);
      const candidates: [string, Kind][] = [
        [column, kind],
        [fitIdentifier(`${column}_${kind}`), kind],
        [fitIdentifier(`${column}_string`), 'string'],
      ];
      for (const [candidate, newKind] of candidates) {
        const dataType = typeOf(candidate);
        if (dataType === undefined) {
          if ((existing?.size ?? 0) + added.size >= MAX_COLUMNS) break;
          added.set(candidate, newKind);
          values[candidate] = stored(value, typeName[newKind]);
          break;
        }
        if (ACCEPTS[dataType]?.includes(kind)) {
          values[candidate] = stored(value, dataType);
          break;
        }
      }
    }
    return { table: row.table, values };
  });
  for (const [table, added] of additions) if (added.size === 0 && layout.has(table)) additions.delete(table);
  return { rows: placed, additions };
}
