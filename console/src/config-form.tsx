import type { DestinationField } from '../../shared/contract/client-types';
import { listRowsOf, pairRowsOf, textOf, type FormValue, type FormValues } from './config-values';

export { configOf, valuesOf, type FormValues } from './config-values';

const SECRET_HELP = 'A secret: its value, or {"credential": "NAME"} to use a workspace credential.';

/** The mark of a required field beside its name (its input says so with aria-required). */
const Required = () => (
  <span class="required" aria-hidden="true" title="required">
    *
  </span>
);

/**
 * The inputs of a destination type's configuration, one per field of its definition (GET
 * /destination-definitions, itself derived from the type's zod schema): labelled with the field's display
 * name, described by its description (aria-describedby), its example as the placeholder. A list of pairs is
 * rows of two inputs, a list of strings rows of one. The values become the configuration object by `configOf`
 * (config-values.ts); a secret field says it may name a workspace credential instead.
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
  const set = (name: string, value: FormValue) => onChange({ ...values, [name]: value });
  return (
    <>
      {fields.some((field) => field.required) && (
        <p class="field-help">
          Fields marked <Required /> <span class="visually-hidden">with an asterisk</span> are required.
        </p>
      )}
      {fields.map((field) => {
        const id = `${idPrefix}-${field.name}`;
        const help = `${id}-help`;
        const helpText = (
          <p class="field-help" id={help}>
            {field.description}
            {field.secret && `${field.description ? ' ' : ''}${SECRET_HELP}`}
          </p>
        );
        if (field.type === 'pairs' || field.type === 'list') {
          return (
            <fieldset class="config-rows" key={field.name} aria-describedby={help}>
              <legend>
                {field.displayName}
                {field.required && <Required />}
              </legend>
              {helpText}
              {field.type === 'pairs' ? (
                <PairRows field={field} id={id} value={values[field.name]} onChange={(rows) => set(field.name, rows)} />
              ) : (
                <ListRows field={field} id={id} value={values[field.name]} onChange={(rows) => set(field.name, rows)} />
              )}
            </fieldset>
          );
        }
        const value = textOf(values[field.name]);
        // aria-required, not required: the API checks the configuration and its words are shown, not the browser's.
        const common = { id, 'aria-describedby': help, 'aria-required': field.required, placeholder: field.example };
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
            <select id={id} aria-describedby={help} aria-required={field.required} value={value} onChange={(e) => set(field.name, e.currentTarget.value)}>
              <option value="">{field.required ? 'Choose…' : '(default)'}</option>
              {(field.options ?? []).map((option) => (
                <option value={option}>{option}</option>
              ))}
            </select>
          );
        } else if (field.type === 'json') {
          input = <textarea {...common} rows={3} value={value} placeholder={field.example ?? 'JSON'} onInput={(e) => set(field.name, e.currentTarget.value)} />;
        } else {
          const type = (field.type === 'url' ? 'url' : field.type === 'string' ? 'text' : 'number') as 'text';
          input = <input {...common} type={type} value={value} onInput={(e) => set(field.name, e.currentTarget.value)} />;
        }
        return (
          <div class="stack" key={field.name}>
            <label for={id}>
              {field.displayName}
              {field.required && <Required />}
            </label>
            {input}
            {helpText}
          </div>
        );
      })}
    </>
  );
}

/** Rows of {from, to}: one input for each side, named by its column, its example as the placeholder. */
function PairRows({ field, id, value, onChange }: { field: DestinationField; id: string; value: FormValue | undefined; onChange: (rows: FormValue) => void }) {
  const stored = pairRowsOf(value);
  const rows = stored.length > 0 ? stored : [{ from: '', to: '' }];
  const columns = field.columns ?? { from: { displayName: 'From' }, to: { displayName: 'To' } };
  const put = (i: number, side: 'from' | 'to', text: string) => onChange(rows.map((row, j) => (j === i ? { ...row, [side]: text } : row)));
  return (
    <div class="pair-rows">
      <span class="pair-heading" aria-hidden="true">
        {columns.from.displayName}
      </span>
      <span class="pair-heading" aria-hidden="true">
        {columns.to.displayName}
      </span>
      <span aria-hidden="true" />
      {rows.map((row, i) => (
        <>
          <input
            id={`${id}-${i}-from`}
            aria-label={`${field.displayName} ${i + 1}: ${columns.from.displayName}`}
            placeholder={columns.from.example}
            value={row.from}
            onInput={(e) => put(i, 'from', e.currentTarget.value)}
          />
          <input
            id={`${id}-${i}-to`}
            aria-label={`${field.displayName} ${i + 1}: ${columns.to.displayName}`}
            placeholder={columns.to.example}
            value={row.to}
            onInput={(e) => put(i, 'to', e.currentTarget.value)}
          />
          <RemoveRow label={`${field.displayName} ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))} />
        </>
      ))}
      <AddRow label={field.displayName} onClick={() => onChange([...rows, { from: '', to: '' }])} />
    </div>
  );
}

/** Rows of one string each, the field's example as the placeholder. */
function ListRows({ field, id, value, onChange }: { field: DestinationField; id: string; value: FormValue | undefined; onChange: (rows: FormValue) => void }) {
  const stored = listRowsOf(value);
  const rows = stored.length > 0 ? stored : [''];
  return (
    <div class="list-rows">
      {rows.map((row, i) => (
        <>
          <input
            id={`${id}-${i}`}
            aria-label={`${field.displayName} ${i + 1}`}
            placeholder={field.example}
            value={row}
            onInput={(e) => onChange(rows.map((r, j) => (j === i ? e.currentTarget.value : r)))}
          />
          <RemoveRow label={`${field.displayName} ${i + 1}`} onClick={() => onChange(rows.filter((_, j) => j !== i))} />
        </>
      ))}
      <AddRow label={field.displayName} onClick={() => onChange([...rows, ''])} />
    </div>
  );
}

const RemoveRow = ({ label, onClick }: { label: string; onClick: () => void }) => (
  <button type="button" class="secondary" aria-label={`Remove ${label}`} onClick={onClick}>
    Remove
  </button>
);

const AddRow = ({ label, onClick }: { label: string; onClick: () => void }) => (
  <button type="button" class="secondary add-row" aria-label={`Add a row to ${label}`} onClick={onClick}>
    Add a row
  </button>
);
