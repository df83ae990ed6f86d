import { useEffect, useState } from 'preact/hooks';
import type { LiveEvent, Source } from '../../../shared/contract/client-types';
import { api, consoleConfig } from '../api';
import { CopyButton, ErrorBox, Scroll, Section, useAction, useLoad, when } from '../ui';
import { Snippets, snippetsFor } from './source-snippets';

/** Types the console has snippets for; any other text is kept as typed (and gets the Node.js snippet). */
const KNOWN_TYPES = ['javascript', 'node', 'android', 'ios', 'flutter', 'react-native', 'HTTP'];

export function Sources() {
  const list = useLoad(() => api.call('GET /v2/sources'));
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const create = useAction();
  const [name, setName] = useState('');
  const [type, setType] = useState('node');

  const submit = async (event: Event) => {
    event.preventDefault();
    const created = await create.run(() => api.call('POST /v2/sources', { body: { name, type } }));
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
          <input id="source-type" list="source-types" aria-describedby="source-type-help" value={type} onInput={(e) => setType(e.currentTarget.value)} />
          <datalist id="source-types">
            {KNOWN_TYPES.map((t) => (
              <option value={t} />
            ))}
          </datalist>
          <p id="source-type-help" class="field-help">
            The SDK you send with: javascript for a web site, android, ios, flutter, react-native, node…
          </p>
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

/** When the source's first event was stored: the source is read again every 2 s until it is known. */
function useFirstEventAt(source: Source): string | undefined {
  const [at, setAt] = useState(source.firstEventAt);
  useEffect(() => {
    if (at) return;
    const timer = setInterval(() => {
      api.call('GET /v2/sources/{id}', { params: { id: source.id } }).then(
        (fresh) => fresh.source.firstEventAt && setAt(fresh.source.firstEventAt),
        () => undefined, // the next round tries again; live events show the API's error
      );
    }, 2000);
    return () => clearInterval(timer);
  }, [source.id, at]);
  return at;
}

function SourceDetail({ source }: { source: Source }) {
  const events = useLoad(() => api.call('GET /v2/sources/{id}/live-events', { params: { id: source.id }, query: { limit: 50 } }), [source.id], 2000);
  const firstEventAt = useFirstEventAt(source);
  const refused = events.data?.refused;
  return (
    <div>
      <Section title={source.name}>
        <p>
          Write key: <code data-testid="write-key">{source.writeKey}</code> <CopyButton text={source.writeKey} label="Copy write key" />
        </p>
        <p role="status" data-testid="first-event" class={firstEventAt ? 'ok' : 'hint'}>
          {firstEventAt ? (
            <>
              First event arrived <time dateTime={firstEventAt}>{when(firstEventAt)}</time>
            </>
          ) : (
            'Waiting for the first event…'
          )}
        </p>
        <Snippets snippets={snippetsFor(source.type, source.writeKey, consoleConfig().dataPlaneUrl)} />
      </Section>
      <Section title="Live events">
        <p class="hint">Refreshes every 2 seconds while this page is open.</p>
        <ErrorBox error={events.error} />
        {refused && refused.events > 0 && (
          <p class="warn" data-testid="refused-count">
            {refused.events} event{refused.events === 1 ? '' : 's'} refused at ingestion
            {refused.lastAt && (
              <>
                , the last at <time dateTime={refused.lastAt}>{when(refused.lastAt)}</time>
              </>
            )}
            . Those of the last 24 hours are listed below with their reason.
          </p>
        )}
        <Scroll label="Live events, scrollable">
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
                <EventRow event={e} />
              ))}
            </tbody>
          </table>
        </Scroll>
        {events.data && events.data.events.length === 0 && <p>No event in the last 24 hours.</p>}
      </Section>
    </div>
  );
}

/** One live event; one refused at ingestion says so, with its reason, where its properties would be. */
function EventRow({ event: e }: { event: LiveEvent }) {
  const refused = e.refused && typeof e.refused === 'object' ? (e.refused as Record<string, unknown>) : undefined;
  return (
    <tr class={refused ? 'refused' : undefined}>
      <td>{when(e.receivedAt)}</td>
      <td>{String(e.type ?? '')}</td>
      <td>{String(e.event ?? '')}</td>
      <td>{String(e.userId ?? e.anonymousId ?? '')}</td>
      <td>
        {refused ? (
          <strong>Refused: {typeof refused.reason === 'string' ? refused.reason : 'no reason given'}</strong>
        ) : (
          <code>{JSON.stringify(e.properties ?? e.traits ?? {})}</code>
        )}
      </td>
    </tr>
  );
}
