import type { DestinationField } from '../../shared/contract/client-types';
import type { FormValues } from './config-values';

export { configOf, valuesOf, type FormValues } from './config-values';

/**
 * The inputs of a destination type's configuration, one per field of its definition (GET
 * /destination-definitions, itself derived from the type's zod schema). Values are kept as text and
 * turned into the configuration object by `configOf` (config-values.ts); a secret field says it may name a
 * workspace credential instead.
 */
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
        const help = field.description || field.secret ? `${id}-help` : undefined;
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
            {(field.description || field.secret) && (
              <p class="field-help" id={help}>
                {field.description}
                {field.secret && `${field.description ? ' ' : ''}A secret: its value, or {"credential": "NAME"} to use a workspace credential.`}
              </p>
            )}
          </div>
        );
      })}
    </>
  );
}
