import type { DestinationField } from '../../shared/contract/client-types';

/**
 * A destination type's configuration as a form holds it, one value per field of its definition, and back: the
 * API validates what `configOf` makes and its words are shown. A field is text, but for a list of pairs (rows of
 * two inputs) and a list of strings (rows of one). A secret field may name a workspace credential instead of
 * holding its value: its text is then the reference as JSON, `{"credential": "NAME"}`.
 */
export interface PairRow {
  from: string;
  to: string;
}
export type FormValue = string | string[] | PairRow[];
export type FormValues = Record<string, FormValue>;

/** A field's value as text (a text field's; rows have none). */
export const textOf = (value: FormValue | undefined): string => (typeof value === 'string' ? value : '');

/** A pairs field's rows. */
export const pairRowsOf = (value: FormValue | undefined): PairRow[] =>
  Array.isArray(value) ? value.map((row) => (typeof row === 'string' ? { from: row, to: '' } : row)) : [];

/** A list field's rows. */
export const listRowsOf = (value: FormValue | undefined): string[] =>
  Array.isArray(value) ? value.map((row) => (typeof row === 'string' ? row : row.from)) : [];

/** A value that names a workspace credential, `{"credential": NAME}` and nothing else. */
const isReference = (value: unknown): value is { credential: string } =>
  typeof value === 'object' && value !== null && Object.keys(value).length === 1 && typeof (value as { credential?: unknown }).credential === 'string';

/** The reference a secret field's text writes, if that is what it is. */
function referenceIn(text: string): { credential: string } | undefined {
  if (!text.startsWith('{')) return undefined;
  try {
    const value = JSON.parse(text) as unknown;
    return isReference(value) ? { credential: value.credential } : undefined;
  } catch {
    return undefined;
  }
}

/** A stored configuration as form text. */
export function valuesOf(fields: DestinationField[], config: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = config[field.name];
    if (value === undefined) continue;
    if (field.type === 'pairs' && Array.isArray(value)) {
      values[field.name] = value.map((p: { from?: unknown; to?: unknown }) => ({ from: String(p.from ?? ''), to: String(p.to ?? '') }));
    } else if (field.type === 'list' && Array.isArray(value)) values[field.name] = value.map(String);
    else
      values[field.name] =
        field.type === 'json' || field.type === 'pairs' || field.type === 'list' || (field.secret && isReference(value))
          ? JSON.stringify(value)
          : String(value);
  }
  return values;
}

/** A form's values as a configuration: empty optional fields, and empty rows, are left out. */
export function configOf(fields: DestinationField[], values: FormValues): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of fields) {
    const value = values[field.name];
    if (Array.isArray(value)) {
      const rows =
        field.type === 'pairs'
          ? pairRowsOf(value)
              .map((row) => ({ from: row.from.trim(), to: row.to.trim() }))
              .filter((row) => row.from !== '' || row.to !== '')
          : listRowsOf(value)
              .map((row) => row.trim())
              .filter((row) => row !== '');
      if (rows.length > 0) config[field.name] = rows;
      continue;
    }
    const text = (value ?? '').trim();
    if (text === '') continue;
    const reference = field.secret ? referenceIn(text) : undefined;
    if (reference) config[field.name] = reference;
    else if (field.type === 'integer' || field.type === 'number') config[field.name] = Number(text);
    else if (field.type === 'boolean') config[field.name] = text === 'true';
    else if (field.type === 'json' || field.type === 'pairs' || field.type === 'list') {
      try {
        config[field.name] = JSON.parse(text);
      } catch {
        config[field.name] = text; // the API names the field and what it expects
      }
    } else config[field.name] = text;
  }
  return config;
}
