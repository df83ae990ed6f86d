import { useState } from 'preact/hooks';
import { api } from '../api';
import { ErrorBox, Scroll, Section, useAction, useConfirm, useLoad, when } from '../ui';

/** Keys only: a value is typed once, sent, and never shown again (the form forgets it at once). */
export function Credentials() {
  const list = useLoad(() => api.call('GET /credentials'));
  const [key, setKey] = useState('');
  const [value, setValue] = useState('');
  const save = useAction();
  const remove = useAction();
  const confirm = useConfirm();
  const ask = (key: string) =>
    void confirm.ask({
      question: `Delete the credential ${key}? Its value is gone for good: a transformation that reads it fails from its next event, and failed events that held it cannot be retried.`,
      confirm: `Delete ${key}`,
      action: () => remove.run(async () => (await api.call('DELETE /credentials/{key}', { params: { key } }), await list.reload())),
    });
  const submit = async (event: Event) => {
    event.preventDefault();
    const done = await save.run(() => api.call('PUT /credentials/{key}', { params: { key }, body: { value, isSecret: true } }));
    setValue('');
    if (!done) return;
    setKey('');
    await list.reload();
  };
  return (
    <>
      <Section title="Keys">
        <ErrorBox error={list.error ?? remove.error} />
        {confirm.dialog}
        <Scroll label="Credentials list">
          <table aria-label="Credentials">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Updated</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.data?.credentials.map((c) => (
                <tr>
                  <td>
                    <code>{c.key}</code>
                  </td>
                  <td>{when(c.updatedAt)}</td>
                  <td>
                    <button type="button" class="secondary" aria-label={`Delete ${c.key}`} onClick={() => ask(c.key)}>
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
        {list.data?.credentials.length === 0 && <p>No credential yet.</p>}
      </Section>
      <Section title="Set a credential">
        <form class="stack" onSubmit={submit} aria-label="Set a credential" noValidate>
          <label for="credential-key">Key</label>
          <input id="credential-key" value={key} onInput={(e) => setKey(e.currentTarget.value)} />
          <label for="credential-value">Value (sent once, never shown again)</label>
          <input id="credential-value" type="password" autoComplete="off" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
          <button type="submit" disabled={save.busy}>
            Save credential
          </button>
          <ErrorBox error={save.error} />
        </form>
      </Section>
    </>
  );
}
