import { useEffect, useState } from 'preact/hooks';
import type { Source } from '../../../shared/contract/client-types';
import { api, consoleConfig } from '../api';
import { routeArgs } from '../route';
import { CopyButton, ErrorBox, Section, useAction, useLoad, when } from '../ui';
import { SeriesChart } from '../series-chart';
import { LiveEvents } from './live-events';
import { Snippets, snippetsFor } from './source-snippets';

/** Types the console has snippets for; any other text is kept as typed (and gets the Node.js snippet). */
const KNOWN_TYPES = ['javascript', 'node', 'android', 'ios', 'flutter', 'react-native', 'HTTP'];

export function Sources() {
  const list = useLoad(() => api.call('GET /v2/sources'));
  const [selected, setSelected] = useState<string | undefined>(routeArgs()[0]); // #/sources/<id> opens that source
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

/** A source's series, as the chart draws them. */
const SOURCE_LINES = [
  { name: 'received', label: 'received', stroke: '#1a5fb4' },
  { name: 'refused', label: 'refused', stroke: '#b3261e' },
  { name: 'duplicate', label: 'duplicates', stroke: '#8a5300' },
];

function SourceDetail({ source }: { source: Source }) {
  const firstEventAt = useFirstEventAt(source);
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
      <Section title="Over time">
        <SeriesChart
          title="Events received"
          lines={SOURCE_LINES}
          whole={(b) => Number(b.received ?? 0)}
          load={(window) => api.call('GET /v2/sources/{id}/series', { params: { id: source.id }, query: { window } })}
        />
      </Section>
      <Section title="Live events">
        <LiveEvents sourceId={source.id} />
      </Section>
    </div>
  );
}
