import { useState } from 'preact/hooks';
import type { Destination, DestinationDefinition as Definition } from '../../../shared/contract/client-types';
import { api } from '../api';
import { ConfigFields, configOf, valuesOf, type FormValues } from '../config-form';
import { referencePage } from '../reference';
import { SeriesChart } from '../series-chart';
import { DestinationTest } from './destination-test';
import { ErrorBox, Json, Scroll, Section, useAction, useLoad, when } from '../ui';

export function Destinations() {
  const list = useLoad(() => api.call('GET /v2/destinations'));
  const definitions = useLoad(() => api.call('GET /destination-definitions'));
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const destinations = list.data?.destinations ?? [];
  const destination = destinations.find((d) => d.id === selected) ?? destinations[0];
  const definition = (type: string) => definitions.data?.find((d) => d.name === type);

  return (
    <div class="columns">
      <div>
        <ErrorBox error={list.error ?? definitions.error} />
        <ul class="picker" aria-label="Destinations">
          {destinations.map((d) => (
            <li>
              <button type="button" aria-pressed={d.id === destination?.id} onClick={() => setSelected(d.id)}>
                {d.name} <small>{definition(d.type)?.displayName ?? d.type}</small>
              </button>
            </li>
          ))}
        </ul>
        {definitions.data && (
          <NewDestination
            definitions={definitions.data}
            onCreated={async (id) => {
              setSelected(id);
              await list.reload();
            }}
          />
        )}
      </div>
      {/* The form's values start from the saved config read through the definition's fields: it waits for both. */}
      {!destination ? (
        <p>No destination yet.</p>
      ) : (
        definitions.data && <DestinationDetail key={destination.id} destination={destination} definition={definition(destination.type)} onSaved={list.reload} />
      )}
    </div>
  );
}

function NewDestination({ definitions, onCreated }: { definitions: Definition[]; onCreated: (id: string) => Promise<void> }) {
  const [type, setType] = useState(definitions[0]?.name ?? '');
  const [name, setName] = useState('');
  const [values, setValues] = useState<FormValues>({});
  const create = useAction();
  const fields = definitions.find((d) => d.name === type)?.fields ?? [];
  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run(() => api.call('POST /v2/destinations', { body: { name, type, config: configOf(fields, values) } }));
    if (!created) return;
    setName('');
    setValues({});
    await onCreated(created.destination.id);
  };
  return (
    <form class="stack" onSubmit={submit} aria-label="New destination" noValidate>
      <h2>New destination</h2>
      <label for="destination-type">Type</label>
      <select id="destination-type" value={type} onChange={(e) => (setType(e.currentTarget.value), setValues({}))}>
        {definitions.map((d) => (
          <option value={d.name}>{d.displayName}</option>
        ))}
      </select>
      <label for="destination-name">Name</label>
      <input id="destination-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <ReferenceLink definition={definitions.find((d) => d.name === type)} />
      <ConfigFields fields={fields} values={values} onChange={setValues} idPrefix="new" />
      <button type="submit" disabled={create.busy}>
        Create destination
      </button>
      <ErrorBox error={create.error} />
    </form>
  );
}

function DestinationDetail({ destination, definition, onSaved }: { destination: Destination; definition?: Definition; onSaved: () => Promise<void> }) {
  const fields = definition?.fields ?? [];
  const [values, setValues] = useState<FormValues>(valuesOf(fields, destination.config));
  const save = useAction();
  const [saved, setSaved] = useState(false);
  const transformations = useLoad(() => api.call('GET /transformations'));
  const transformation = transformations.data?.transformations.find((t) => t.id === destination.transformationId);
  const submit = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const done = await save.run(() => api.call('PATCH /v2/destinations/{id}', { params: { id: destination.id }, body: { config: configOf(fields, values) } }));
    if (done === undefined) return;
    setSaved(true);
    await onSaved();
  };
  return (
    <div>
      <Section title={destination.name}>
        <p>
          {definition?.displayName ?? destination.type} · {destination.enabled ? 'enabled' : 'disabled'} ·{' '}
          {destination.transformationId ? (transformation ? `transformation ${transformation.name}` : '') : 'no transformation'}
        </p>
        <form class="stack" onSubmit={submit} aria-label="Configuration" noValidate>
          <ReferenceLink definition={definition} />
          <ConfigFields fields={fields} values={values} onChange={setValues} idPrefix="edit" />
          <button type="submit" disabled={save.busy}>
            Save configuration
          </button>
          {saved && <p class="ok">Saved.</p>}
          <ErrorBox error={save.error} />
        </form>
      </Section>
      <DestinationTest destinationId={destination.id} supportsTest={definition?.supportsTest ?? false} />
      <Delivery destinationId={destination.id} />
    </div>
  );
}

/** A destination's series, as the chart draws them (the funnel's classes by where they ended). */
const DELIVERY_LINES = [
  { name: 'delivered', label: 'delivered', stroke: '#146c2e' },
  { name: 'failed', label: 'failed', stroke: '#b3261e' },
  { name: 'filtered', label: 'filtered', stroke: '#5f6368' },
  { name: 'retrying', label: 'retrying', stroke: '#8a5300' },
];

function Delivery({ destinationId }: { destinationId: string }) {
  const outcomes = useLoad(() => api.call('GET /v2/destinations/{id}/outcomes', { params: { id: destinationId } }), [destinationId], 3000);
  const events = useLoad(
    () => api.call('GET /v2/destinations/{id}/live-events', { params: { id: destinationId }, query: { limit: 50 } }),
    [destinationId],
    3000,
  );
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const sourceName = (id: string) => (sources.data ? (sources.data.sources.find((s) => s.id === id)?.name ?? 'a deleted source') : '');
  const failures = (events.data?.events ?? []).filter((e) => e.outcome === 'aborted' || e.outcome === 'retrying');
  const o = outcomes.data;
  return (
    <>
      <Section title="Outcomes">
        <ErrorBox error={outcomes.error} />
        {o && (
          <Scroll label="Outcome counts, scrollable">
            <table aria-label="Outcome counts">
              <tbody>
                <tr>
                  {(['delivered', 'retrying', 'aborted', 'filtered', 'suppressed'] as const).map((k) => (
                    <td>
                      <span class={`status-${k}`}>{k}</span> <strong data-testid={`outcome-${k}`}>{o[k]}</strong>
                    </td>
                  ))}
                </tr>
              </tbody>
            </table>
          </Scroll>
        )}
        {o && o.filteredByRule.length > 0 && (
          <Scroll label="Filtered by rule, scrollable">
            <table aria-label="Filtered by rule">
              <thead>
                <tr>
                  <th scope="col">Rule</th>
                  <th scope="col">Source</th>
                  <th scope="col">Events stopped</th>
                </tr>
              </thead>
              <tbody>
                {o.filteredByRule.map((r) => (
                  <tr>
                    <td>{r.rule}</td>
                    <td>{sourceName(r.sourceId)}</td>
                    <td>{r.filtered}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        )}
      </Section>
      <Section title="Over time">
        <SeriesChart
          title="Delivery"
          lines={DELIVERY_LINES}
          whole={(b) => DELIVERY_LINES.reduce((n, l) => n + Number(b[l.name] ?? 0), 0)}
          load={(window) => api.call('GET /v2/destinations/{id}/series', { params: { id: destinationId }, query: { window } })}
        />
      </Section>
      <Section title="Latest failures">
        <ErrorBox error={events.error} />
        {failures.length === 0 && (o?.lastErrors.length ?? 0) === 0 ? (
          <p>No failure.</p>
        ) : (
          <Scroll label="Latest failures, scrollable">
            <table aria-label="Latest failures">
              <thead>
                <tr>
                  <th scope="col">When</th>
                  <th scope="col">Message</th>
                  <th scope="col">Outcome</th>
                  <th scope="col">Status</th>
                  <th scope="col">Error or response</th>
                </tr>
              </thead>
              <tbody>
                {failures.map((f) => (
                  <tr>
                    <td>{when(f.at)}</td>
                    <td>{String(f.messageId)}</td>
                    <td class={`status-${String(f.outcome)}`}>{String(f.outcome)}</td>
                    <td>{String(f.status ?? '')}</td>
                    <td>{f.response !== undefined ? <Json value={f.response} /> : String(f.error ?? '')}</td>
                  </tr>
                ))}
                {failures.length === 0 &&
                  o?.lastErrors.map((e) => (
                    <tr>
                      <td>{when(e.at)}</td>
                      <td>{e.messageId}</td>
                      <td>error</td>
                      <td>{e.status ?? ''}</td>
                      <td>{e.error}</td>
                    </tr>
                  ))}
              </tbody>
            </table>
          </Scroll>
        )}
      </Section>
    </>
  );
}

/** The type's reference page (rendered into the console site at build time): what each field means, what is sent. */
function ReferenceLink({ definition }: { definition: Definition | undefined }) {
  if (!definition) return null;
  return (
    <p class="field-help">
      <a href={referencePage(definition.name)} target="_blank" rel="noopener">
        {definition.displayName} reference
      </a>
      : what each setting means and what each event becomes.
    </p>
  );
}
