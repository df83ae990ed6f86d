import type { DestinationField } from '../../shared/contract/client-types';

/**
 * A destination type's configuration as form text, one value per field of its definition, and back: the API
 * validates what `configOf` makes and its words are shown. A secret field may name a workspace credential
 * instead of holding its value: its text is then the reference as JSON, `{"credential": "NAME"}`.
 */
export type FormValues = Record<string, string>;

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

const pairsText = (value: unknown) =>
  Array.isArray(value) ? value.map((p: { from?: string; to?: string }) => `${p.from ?? ''}: ${p.to ?? ''}`).join('\n') : '';

/** A stored configuration as form text. */
export function valuesOf(fields: DestinationField[], config: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = config[field.name];
    if (value === undefined) continue;
    values[field.name] =
      field.type === 'pairs' ? pairsText(value) : field.type === 'json' || (field.secret && isReference(value)) ? JSON.stringify(value) : String(value);
  }
  return values;
}

/** Form text as a configuration: empty optional fields are left out. */
export function configOf(fields: DestinationField[], values: FormValues): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of fields) {
    const text = (values[field.name] ?? '').trim();
    if (text === '') continue;
    const reference = field.secret ? referenceIn(text) : undefined;
    if (reference) config[field.name] = reference;
    else if (field.type === 'integer' || field.type === 'number') config[field.name] = Number(text);
    else if (field.type === 'boolean') config[field.name] = text === 'true';
    else if (field.type === 'pairs') {
      config[field.name] = text
        .split('\n')
        .filter((line) => line.trim())
        .map((line) => {
          const at = line.indexOf(':');
          return at < 0 ? { from: line.trim(), to: '' } : { from: line.slice(0, at).trim(), to: line.slice(at + 1).trim() };
        });
    } else if (field.type === 'json') {
      try {
        config[field.name] = JSON.parse(text);
      } catch {
        config[field.name] = text; // the API names the field and what it expects
      }
    } else config[field.name] = text;
  }
  return config;
}
