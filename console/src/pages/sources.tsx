import { useState } from 'preact/hooks';
import type { Source } from '../../../shared/domain/catalog/schemas';
import type { LiveEventsPage } from '../../../shared/domain/delivery/monitoring';
import type { z } from 'zod';
import { api, consoleConfig } from '../api';
import { CopyButton, ErrorBox, Section, useAction, useLoad, when } from '../ui';

type Events = z.infer<typeof LiveEventsPage>;

/** The SDK snippet a developer pastes; the data plane's URL is the stage's own. */
const snippet = (writeKey: string, dataPlaneUrl: string) => `import Analytics from '@rudderstack/rudder-sdk-node';

const client = new Analytics('${writeKey}', { dataPlaneUrl: '${dataPlaneUrl}' });
client.track({ userId: 'u1', event: 'Signed Up', properties: { plan: 'pro' } });
await client.flush();`;

export function Sources() {
  const list = useLoad(() => api.get<{ sources: Source[] }>('/v2/sources'));
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const create = useAction();
  const [name, setName] = useState('');
  const [type, setType] = useState('node');

  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run(() => api.post<{ source: Source }>('/v2/sources', { name, type }));
    if (!created) return;
    setName('');
    setSelected(created.source.id);
    await list.reload();
  };

  const sources = list.data?.sources ?? [];
  const source = sources.find((s) => s.id === selected) ?? sources[0];
  return (
    <div class="columns">
      <div>
        <ErrorBox error={list.error} />
        <ul class="picker" aria-label="Sources">
          {sources.map((s) => (
            <li>
              <button type="button" aria-pressed={s.id === source?.id} onClick={() => setSelected(s.id)}>
                {s.name} <small>{s.type}</small>
              </button>
            </li>
          ))}
        </ul>
        <form onSubmit={submit} class="stack" aria-label="New source">
          <h2>New source</h2>
          <label for="source-name">Name</label>
          <input id="source-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
          <label for="source-type">Type</label>
          <input id="source-type" value={type} onInput={(e) => setType(e.currentTarget.value)} />
          <button type="submit" disabled={create.busy}>
            Create source
          </button>
          <ErrorBox error={create.error} />
        </form>
      </div>
      {source ? <SourceDetail key={source.id} source={source} /> : <p>No source yet: create one to get a write key.</p>}
    </div>
  );
}

function SourceDetail({ source }: { source: Source }) {
  const events = useLoad(() => api.get<Events>(`/v2/sources/${source.id}/live-events?limit=50`), [source.id], 2000);
  return (
    <div>
      <Section title={source.name}>
        <p>
          Write key: <code data-testid="write-key">{source.writeKey}</code> <CopyButton text={source.writeKey} label="Copy write key" />
        </p>
        <h3>SDK snippet</h3>
        <pre class="code" tabIndex={0}>
          {snippet(source.writeKey, consoleConfig().dataPlaneUrl)}
        </pre>
      </Section>
      <Section title="Live events">
        <p class="hint">Refreshes every 2 seconds while this page is open.</p>
        <ErrorBox error={events.error} />
        <table aria-label="Live events">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Type</th>
              <th scope="col">Event</th>
              <th scope="col">User</th>
              <th scope="col">Properties</th>
            </tr>
          </thead>
          <tbody>
            {(events.data?.events ?? []).map((e) => (
              <tr>
                <td>{when(e.receivedAt as string)}</td>
                <td>{String(e.type ?? '')}</td>
                <td>{String(e.event ?? '')}</td>
                <td>{String(e.userId ?? e.anonymousId ?? '')}</td>
                <td>
                  <code>{JSON.stringify(e.properties ?? e.traits ?? {})}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
        {events.data && events.data.events.length === 0 && <p>No event in the last 24 hours.</p>}
      </Section>
    </div>
  );
}
