import type { DestinationField } from '../../shared/contract/client-types';

/**
 * The inputs of a destination type's configuration, one per field of its definition (GET
 * /destination-definitions, itself derived from the type's zod schema). Values are kept as text and
 * turned into the configuration object by `configOf`; the API validates it and its words are shown.
 */
export type FormValues = Record<string, string>;

const pairsText = (value: unknown) =>
  Array.isArray(value) ? value.map((p: { from?: string; to?: string }) => `${p.from ?? ''}: ${p.to ?? ''}`).join('\n') : '';

/** A stored configuration as form text. */
export function valuesOf(fields: DestinationField[], config: Record<string, unknown>): FormValues {
  const values: FormValues = {};
  for (const field of fields) {
    const value = config[field.name];
    if (value === undefined) continue;
    values[field.name] = field.type === 'pairs' ? pairsText(value) : field.type === 'json' ? JSON.stringify(value) : String(value);
  }
  return values;
}

/** Form text as a configuration: empty optional fields are left out. */
export function configOf(fields: DestinationField[], values: FormValues): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const field of fields) {
    const text = (values[field.name] ?? '').trim();
    if (text === '') continue;
    if (field.type === 'integer' || field.type === 'number') config[field.name] = Number(text);
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

export function ConfigFields({
  fields,
  values,
  onChange,
  idPrefix,
}: {
  fields: DestinationField[];
  values: FormValues;
  onChange: (values: FormValues) => void;
  idPrefix: string;
}) {
  const set = (name: string, value: string) => onChange({ ...values, [name]: value });
  return (
    <>
      {fields.map((field) => {
        const id = `${idPrefix}-${field.name}`;
        const help = field.description ? `${id}-help` : undefined;
        const value = values[field.name] ?? '';
        // aria-required, not required: the API checks the configuration and its words are shown, not the browser's.
        const common = { id, 'aria-describedby': help, 'aria-required': field.required };
        let input;
        if (field.type === 'boolean') {
          input = (
            <input
              type="checkbox"
              id={id}
              aria-describedby={help}
              checked={value === 'true'}
              onChange={(e) => set(field.name, String(e.currentTarget.checked))}
            />
          );
        } else if (field.type === 'enum') {
          input = (
            <select {...common} value={value} onChange={(e) => set(field.name, e.currentTarget.value)}>
              <option value="">{field.required ? 'Choose…' : '(default)'}</option>
              {(field.options ?? []).map((option) => (
                <option value={option}>{option}</option>
              ))}
            </select>
          );
        } else if (field.type === 'pairs' || field.type === 'json') {
          input = (
            <textarea
              {...common}
              rows={3}
              value={value}
              placeholder={field.type === 'pairs' ? 'name: value, one a line' : 'JSON'}
              onInput={(e) => set(field.name, e.currentTarget.value)}
            />
          );
        } else {
          const type = (field.type === 'url' ? 'url' : field.type === 'string' ? 'text' : 'number') as 'text';
          input = <input {...common} type={type} value={value} onInput={(e) => set(field.name, e.currentTarget.value)} />;
        }
        return (
          <div class="stack" key={field.name}>
            <label for={id}>
              {field.name}
              {field.required ? ' (required)' : ''}
            </label>
            {input}
            {field.description && (
              <p class="field-help" id={help}>
                {field.description}
              </p>
            )}
          </div>
        );
      })}
    </>
  );
}
