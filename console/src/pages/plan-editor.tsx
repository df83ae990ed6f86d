import { useState } from 'preact/hooks';
import { api } from '../api';
import { EVENT_TYPES, eventLabel, eventsOf, newEvent, newProperty, problems, PROPERTY_TYPES, specsOf, type PlanEvent, type PlanProperty } from '../plan-table';
import { ErrorBox, Scroll, Section, useAction } from '../ui';

/**
 * A plan's specs as a table (one row per event, then one per property: name, type, required, description) with
 * the JSON as an advanced view. Both edit the same specs: a change in the table rewrites the JSON, JSON that
 * parses rewrites the table. Saving makes the next version.
 */
export function SpecsEditor({ plan, onSaved }: { plan: { id: string; specs: unknown[] }; onSaved: () => void }) {
  const [events, setEvents] = useState<PlanEvent[]>(() => eventsOf(plan.specs));
  const [text, setText] = useState(() => JSON.stringify(plan.specs, null, 2));
  const [jsonError, setJsonError] = useState<string | undefined>(undefined);
  const action = useAction();

  const update = (next: PlanEvent[]) => {
    setEvents(next);
    setText(JSON.stringify(specsOf(next), null, 2));
    setJsonError(undefined);
  };
  const editJson = (value: string) => {
    setText(value);
    try {
      const parsed: unknown = JSON.parse(value);
      if (!Array.isArray(parsed)) throw new Error('must be an array of event specs');
      setEvents(eventsOf(parsed));
      setJsonError(undefined);
    } catch (e) {
      setJsonError(`specs (JSON): ${(e as Error).message}; the table shows the last specs that parsed`);
    }
  };
  const setEvent = (i: number, change: Partial<PlanEvent>) => update(events.map((e, k) => (k === i ? { ...e, ...change } : e)));
  const setProperty = (i: number, j: number, change: Partial<PlanProperty>) =>
    setEvent(i, { properties: events[i]!.properties.map((p, k) => (k === j ? { ...p, ...change } : p)) });

  const save = () =>
    action.run(async () => {
      if (jsonError) throw new Error(jsonError);
      const found = problems(events);
      if (found.length > 0) throw new Error(`specs: ${found.join('; ')}`);
      await api.call('PUT /v2/tracking-plans/{id}', { params: { id: plan.id }, body: { specs: specsOf(events) as never } });
      onSaved();
    });

  return (
    <Section title="Event specs">
      <ErrorBox error={action.error} />
      <Scroll label="Event specs, scrollable">
        <table aria-label="Event specs" class="plan-table">
          <thead>
            <tr>
              <th scope="col">Event</th>
              <th scope="col">Property</th>
              <th scope="col">Type</th>
              <th scope="col">Required</th>
              <th scope="col">Description</th>
              <th scope="col">Change</th>
            </tr>
          </thead>
          {events.map((e, i) => {
            const label = eventLabel(e);
            return (
              <tbody key={i}>
                <tr class="plan-event">
                  <td>
                    <select aria-label={`Event ${i + 1}: type`} value={e.type} onChange={(ev) => setEvent(i, { type: ev.currentTarget.value })}>
                      {EVENT_TYPES.map((t) => (
                        <option value={t}>{t}</option>
                      ))}
                    </select>{' '}
                    <input aria-label={`Event ${i + 1}: name`} value={e.name} size={18} onInput={(ev) => setEvent(i, { name: ev.currentTarget.value })} />
                  </td>
                  <td colSpan={3} class="hint">
                    {e.properties.length === 0 ? 'no property' : `${e.properties.length} ${e.properties.length === 1 ? 'property' : 'properties'}`}
                  </td>
                  <td>
                    <input
                      aria-label={`Event ${i + 1}: description`}
                      value={e.description}
                      onInput={(ev) => setEvent(i, { description: ev.currentTarget.value })}
                    />
                  </td>
                  <td class="actions">
                    <button
                      type="button"
                      class="secondary"
                      aria-label={`Add property to ${label}`}
                      onClick={() => setEvent(i, { properties: [...e.properties, newProperty(e)] })}
                    >
                      Add property
                    </button>{' '}
                    <button type="button" class="secondary" aria-label={`Remove ${label}`} onClick={() => update(events.filter((_, k) => k !== i))}>
                      Remove
                    </button>
                  </td>
                </tr>
                {e.properties.map((p, j) => {
                  const of = `Property ${j + 1} of ${label}`;
                  const types = (PROPERTY_TYPES as readonly string[]).includes(p.type) ? PROPERTY_TYPES : [...PROPERTY_TYPES, p.type];
                  return (
                    <tr key={`${i}.${j}`}>
                      <td />
                      <td>
                        <input aria-label={`${of}: name`} value={p.name} size={16} onInput={(ev) => setProperty(i, j, { name: ev.currentTarget.value })} />
                      </td>
                      <td>
                        <select aria-label={`${of}: type`} value={p.type} onChange={(ev) => setProperty(i, j, { type: ev.currentTarget.value })}>
                          {types.map((t) => (
                            <option value={t}>{t}</option>
                          ))}
                        </select>
                      </td>
                      <td>
                        <input
                          type="checkbox"
                          aria-label={`${of}: required`}
                          checked={p.required}
                          onChange={(ev) => setProperty(i, j, { required: ev.currentTarget.checked })}
                        />
                      </td>
                      <td>
                        <input
                          aria-label={`${of}: description`}
                          value={p.description}
                          onInput={(ev) => setProperty(i, j, { description: ev.currentTarget.value })}
                        />
                        {Object.keys(p.rest).length > 0 && <small class="hint"> and {Object.keys(p.rest).join(', ')} (in the JSON)</small>}
                      </td>
                      <td class="actions">
                        <button
                          type="button"
                          class="secondary"
                          aria-label={`Remove ${of}`}
                          onClick={() => setEvent(i, { properties: e.properties.filter((_, k) => k !== j) })}
                        >
                          Remove
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            );
          })}
        </table>
      </Scroll>
      <div class="row">
        <button type="button" class="secondary" onClick={() => update([...events, newEvent()])}>
          Add an event
        </button>
        <button type="button" disabled={action.busy} onClick={() => void save()}>
          Save as a new version
        </button>
      </div>
      <details class="advanced">
        <summary>Advanced: the specs as JSON</summary>
        <label for="plan-specs">Specs (JSON: type, name, and a JSON Schema of the properties or traits)</label>
        {jsonError && (
          <p class="error" role="alert">
            {jsonError}
          </p>
        )}
        <textarea id="plan-specs" class="specs" rows={16} value={text} onInput={(e) => editJson(e.currentTarget.value)} />
      </details>
    </Section>
  );
}
