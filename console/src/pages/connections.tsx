import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Section, useAction, useConfirm, useLoad } from '../ui';
import { ConnectionRules } from './connection-rules';

/** Every connection as source → transformation → destination, read at a glance; and connecting a new pair. */
export function Connections() {
  const data = useLoad(async () => {
    const [sources, destinations, connections, transformations] = await Promise.all([
      api.call('GET /v2/sources'),
      api.call('GET /v2/destinations'),
      api.call('GET /v2/connections'),
      api.call('GET /transformations'),
    ]);
    return { ...sources, ...destinations, ...connections, ...transformations };
  });
  const [sourceId, setSourceId] = useState('');
  const [destinationId, setDestinationId] = useState('');
  const [editing, setEditing] = useState<string | undefined>(undefined);
  const action = useAction();
  const d = data.data;
  const byId = <T extends { id: string }>(list: T[] | undefined, id: string | undefined) => list?.find((x) => x.id === id);
  const pairOf = (c: { sourceId: string; destinationId: string }) =>
    `${byId(d?.sources, c.sourceId)?.name ?? c.sourceId} → ${byId(d?.destinations, c.destinationId)?.name ?? c.destinationId}`;
  const edited = d?.connections.find((c) => c.id === editing);

  const connect = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      api.call('POST /v2/connections', {
        body: { sourceId: sourceId || (d?.sources[0]?.id ?? ''), destinationId: destinationId || (d?.destinations[0]?.id ?? '') },
      }),
    );
    if (done) await data.reload();
  };
  const confirm = useConfirm();
  const remove = (id: string, pair: string, rules: number) =>
    void confirm.ask({
      question: `Disconnect ${pair}? No more events go this way, and ${rules === 1 ? 'its 1 rule is' : `its ${rules} rules are`} deleted with the connection.`,
      confirm: 'Disconnect',
      action: async () => {
        if (await action.run(() => api.call('DELETE /v2/connections/{id}', { params: { id } }))) await data.reload();
      },
    });

  return (
    <>
      <ErrorBox error={data.error} />
      {confirm.dialog}
      <Section title="Pipeline">
        {d && d.connections.length === 0 && <p>Nothing is connected yet.</p>}
        <ul class="pipeline" aria-label="Connections">
          {d?.connections.map((c) => {
            const source = byId(d.sources, c.sourceId);
            const destination = byId(d.destinations, c.destinationId);
            const transformation = byId(d.transformations, destination?.transformationId);
            const text = `${source?.name} → ${transformation ? transformation.name : 'no transformation'} → ${destination?.name}`;
            return (
              <li aria-label={text}>
                <span class="node source">
                  <small>source</small>
                  {source?.name ?? c.sourceId}
                </span>
                <span class="arrow" aria-hidden="true">
                  →
                </span>
                <span class={`node transformation${transformation ? '' : ' none'}`}>
                  <small>transformation</small>
                  {transformation ? `${transformation.name}${transformation.publishedVersionId ? '' : ' (draft)'}` : 'none'}
                </span>
                <span class="arrow" aria-hidden="true">
                  →
                </span>
                <span class={`node destination${destination?.enabled === false ? ' none' : ''}`}>
                  <small>{destination?.type ?? 'destination'}</small>
                  {destination?.name ?? c.destinationId}
                </span>
                <button type="button" class="secondary" aria-label={`Rules of ${pairOf(c)}`} onClick={() => setEditing(c.id)}>
                  {c.rules.length === 0 ? 'Rules' : `Rules (${c.rules.length})`}
                </button>
                <button
                  type="button"
                  class="secondary"
                  aria-label={`Disconnect ${source?.name} from ${destination?.name}`}
                  onClick={() => remove(c.id, `${source?.name ?? c.sourceId} from ${destination?.name ?? c.destinationId}`, c.rules.length)}
                >
                  Disconnect
                </button>
              </li>
            );
          })}
        </ul>
      </Section>
      {edited && <ConnectionRules key={edited.id} connectionId={edited.id} title={pairOf(edited)} rules={edited.rules} onSaved={() => void data.reload()} />}
      <Section title="Connect">
        <form class="row" onSubmit={connect} aria-label="Connect a source to a destination">
          <label for="connect-source">Source</label>
          <select id="connect-source" value={sourceId} onChange={(e) => setSourceId(e.currentTarget.value)}>
            {d?.sources.map((s) => (
              <option value={s.id}>{s.name}</option>
            ))}
          </select>
          <label for="connect-destination">Destination</label>
          <select id="connect-destination" value={destinationId} onChange={(e) => setDestinationId(e.currentTarget.value)}>
            {d?.destinations.map((x) => (
              <option value={x.id}>{x.name}</option>
            ))}
          </select>
          <button type="submit" disabled={action.busy}>
            Connect
          </button>
        </form>
        <ErrorBox error={action.error} />
      </Section>
    </>
  );
}
