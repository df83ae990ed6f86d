import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Scroll, Section, useAction, useConfirm, useLoad, when } from '../ui';

/** Suppress users, or suppress and delete them at destinations; follow each destination's deletion. */
export function Regulations() {
  const list = useLoad(() => api.call('GET /v2/regulations', { query: { per_page: 100 } }));
  const destinations = useLoad(() => api.call('GET /v2/destinations'));
  // Only a type whose definition says it can delete users is offered for deletion.
  const definitions = useLoad(() => api.call('GET /destination-definitions'));
  const deleting = new Set((definitions.data ?? []).filter((d) => d.supportsDeletion).map((d) => d.name));
  const deletable = (destinations.data?.destinations ?? []).filter((d) => deleting.has(d.type));
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [type, setType] = useState<'suppress' | 'suppress_with_delete'>('suppress');
  const [users, setUsers] = useState('');
  const [chosen, setChosen] = useState<string[]>([]);
  const create = useAction();

  const submit = async (event: Event) => {
    event.preventDefault();
    const body = {
      regulationType: type,
      users: users
        .split(/[\s,]+/)
        .filter(Boolean)
        .map((userId) => ({ userId })),
      ...(type === 'suppress_with_delete' && chosen.length > 0 && { destinationIds: chosen }),
    };
    // Accept: application/json, so the answer is the created regulations rather than the text "Created".
    const created = await create.run(() => api.call('POST /v2/regulations', { body, headers: { Accept: 'application/json' } }));
    if (!created) return;
    setUsers('');
    setSelected(created[0]?.id);
    await list.reload();
  };

  const regulations = (list.data?.data ?? []).slice().reverse();
  return (
    <div class="columns">
      <div>
        <form class="stack" onSubmit={submit} aria-label="New regulation" noValidate>
          <h2>New regulation</h2>
          <label for="regulation-type">Type</label>
          <select id="regulation-type" value={type} onChange={(e) => setType(e.currentTarget.value as typeof type)}>
            <option value="suppress">suppress: drop their events</option>
            <option value="suppress_with_delete">suppress_with_delete: drop and delete at destinations</option>
          </select>
          <label for="regulation-users">User IDs (comma or space separated)</label>
          <input id="regulation-users" value={users} onInput={(e) => setUsers(e.currentTarget.value)} />
          {type === 'suppress_with_delete' && (
            <fieldset>
              <legend>Delete at (none chosen: every destination that can delete)</legend>
              {definitions.data && deletable.length === 0 && (
                <p class="hint">No destination of this workspace can delete users: their events are only suppressed.</p>
              )}
              {deletable.map((d) => (
                <label class="row">
                  <input
                    type="checkbox"
                    checked={chosen.includes(d.id)}
                    onChange={(e) => setChosen(e.currentTarget.checked ? [...chosen, d.id] : chosen.filter((id) => id !== d.id))}
                  />
                  {d.name} <small>{d.type}</small>
                </label>
              ))}
            </fieldset>
          )}
          <button type="submit" disabled={create.busy}>
            Create regulation
          </button>
          <ErrorBox error={create.error} />
        </form>
        <h2>Regulations</h2>
        <ErrorBox error={list.error} />
        <ul class="picker" aria-label="Regulations">
          {regulations.map((r) => (
            <li>
              <button type="button" aria-pressed={r.id === selected} onClick={() => setSelected(r.id)}>
                {r.attributes.userId}{' '}
                <small>
                  {r.regulationType}
                  {r.canceled ? ' · canceled' : ''}
                </small>
              </button>
            </li>
          ))}
        </ul>
      </div>
      {selected ? (
        <RegulationView
          key={selected}
          id={selected}
          onChanged={list.reload}
          names={destinations.data && new Map(destinations.data.destinations.map((d) => [d.id, d.name]))}
        />
      ) : (
        <p>Choose a regulation to follow it.</p>
      )}
    </div>
  );
}

function RegulationView({ id, onChanged, names }: { id: string; onChanged: () => Promise<void>; names?: Map<string, string> }) {
  const detail = useLoad(() => api.call('GET /v2/regulations/{id}', { params: { id } }), [id], 3000);
  const cancel = useAction();
  const confirm = useConfirm();
  const r = detail.data;
  const ask = () => {
    if (!r) return;
    const open = (r.jobs ?? []).filter((j) => j.status !== 'completed' && j.status !== 'unsupported').length;
    void confirm.ask({
      question: `Cancel the regulation for ${r.attributes.userId}? Their events are delivered again from now on${open > 0 ? `, and ${open} deletion${open === 1 ? '' : 's'} not yet done at destinations stop` : ''}.`,
      confirm: 'Cancel the regulation',
      action: () => cancel.run(async () => (await api.call('DELETE /v2/regulations/{id}', { params: { id } }), await detail.reload(), await onChanged())),
    });
  };
  return (
    <Section title={r ? `Regulation for ${r.attributes.userId}` : 'Regulation'}>
      <ErrorBox error={detail.error ?? cancel.error} />
      {confirm.dialog}
      {r && (
        <>
          <p>
            {r.regulationType} · status <strong data-testid="regulation-status">{r.status}</strong> · created {when(r.createdAt)}
            {r.canceledAt ? ` · canceled ${when(r.canceledAt)}` : ''}
          </p>
          {r.jobs && (
            <Scroll label="Deletions list">
              <table aria-label="Deletion at each destination">
                <thead>
                  <tr>
                    <th scope="col">Destination</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last error or reason</th>
                    <th scope="col">Next attempt</th>
                  </tr>
                </thead>
                <tbody>
                  {r.jobs.map((j) => (
                    <tr>
                      <td>
                        {names ? (names.get(j.destinationId) ?? 'a deleted destination') : ''} <small>{j.destinationType}</small>
                      </td>
                      <td class={`status-${j.status}`}>{j.status}</td>
                      <td>{j.attempts}</td>
                      <td>{j.lastError ?? j.reason ?? ''}</td>
                      <td>{when(j.nextAttemptAt)}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </Scroll>
          )}
          {!r.canceled && (
            <button type="button" class="secondary" disabled={cancel.busy} onClick={ask}>
              Cancel regulation
            </button>
          )}
        </>
      )}
    </Section>
  );
}
