import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Scroll, Section, useAction, useConfirm, useLoad, when } from '../ui';

/** `datetime-local` values are local times without a zone: as ISO instants. */
const isoOf = (local: string) => (local ? new Date(local).toISOString() : '');
const localOf = (ms: number) => new Date(ms - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16);

/** Replay a source's stored events of a window to this destination, and follow the replays made to it. */
export function ReplayForm({ destinationId }: { destinationId: string }) {
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const replays = useLoad(() => api.call('GET /v2/replays'), [], 2000);
  const [sourceId, setSourceId] = useState('');
  const [from, setFrom] = useState(localOf(Date.now() - 3600_000));
  // The minute after now (the API takes a window that ends up to a minute ahead), so what just arrived is in it.
  const [to, setTo] = useState(localOf(Date.now() + 60_000));
  const start = useAction();
  const cancel = useAction();
  const list = sources.data?.sources ?? [];
  const chosen = sourceId || list[0]?.id || '';
  const mine = (replays.data?.replays ?? []).filter((r) => r.destinationId === destinationId);

  const confirm = useConfirm();
  const replay = async () => {
    const started = await start.run(() => api.call('POST /v2/replays', { body: { sourceId: chosen, destinationId, from: isoOf(from), to: isoOf(to) } }));
    if (started) await replays.reload();
  };
  // Before a replay: how many events it may send, from the source's funnel over the hours the window touches.
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!from || !to) return replay(); // the API names what is missing
    const source = list.find((s) => s.id === chosen)?.name ?? 'the source';
    const counted = await start.run(() => api.call('GET /v2/sources/{id}/delivery', { params: { id: chosen }, query: { from: isoOf(from), to: isoOf(to) } }));
    if (!counted) return;
    await confirm.ask({
      question: `Replay what ${source} stored from ${when(isoOf(from))} to ${when(isoOf(to))} to this destination? Its hours hold ${counted.stored} stored events, and each one received in the window is sent again.`,
      confirm: `Replay up to ${counted.stored} events`,
      action: replay,
    });
  };
  return (
    <Section title="Replay">
      <form class="stack" onSubmit={submit} aria-label="Replay stored events" noValidate>
        <label for="replay-source">Source</label>
        <select id="replay-source" value={chosen} onChange={(e) => setSourceId(e.currentTarget.value)}>
          {list.map((s) => (
            <option value={s.id}>{s.name}</option>
          ))}
        </select>
        <label for="replay-from">Received from</label>
        <input id="replay-from" type="datetime-local" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
        <label for="replay-to">until</label>
        <input id="replay-to" type="datetime-local" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
        <button type="submit" disabled={start.busy || !chosen}>
          Replay to this destination
        </button>
        <ErrorBox error={start.error ?? cancel.error ?? replays.error} />
      </form>
      {confirm.dialog}
      {mine.length > 0 && (
        <Scroll label="Replays list">
          <table aria-label="Replays">
            <thead>
              <tr>
                <th scope="col">Started</th>
                <th scope="col">Window</th>
                <th scope="col">Status</th>
                <th scope="col">Progress</th>
                <th scope="col" />
              </tr>
            </thead>
            <tbody>
              {mine.map((r) => (
                <tr>
                  <td>{when(r.createdAt)}</td>
                  <td>
                    {when(r.from)} – {when(r.to)}
                  </td>
                  <td data-testid="replay-status">{r.status}</td>
                  <td>
                    {r.progress.events} read, {r.progress.delivered} delivered, {r.progress.aborted} failed, {r.progress.retrying} retrying,{' '}
                    {r.progress.suppressed} suppressed
                  </td>
                  <td>
                    {r.status === 'running' && (
                      <button
                        type="button"
                        disabled={cancel.busy}
                        onClick={() => void cancel.run(() => api.call('POST /v2/replays/{id}/cancel', { params: { id: r.id } })).then(() => replays.reload())}
                      >
                        Cancel
                      </button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </Section>
  );
}
