import { useState } from 'preact/hooks';
import type { Library, Transformation } from '../../../shared/contract/client-types';
import { api } from '../api';
import { CodeEditor } from '../editor';
import { ErrorBox, useAction, useLoad } from '../ui';
import { Revisions } from './revisions';
import { refusalOf, TestResults, type TestAnswer } from './test-results';

/**
 * Transformations and libraries: one page, as they are edited, tested and published together. What differs
 * between the two kinds is their starter code and their routes (saveRevision here, revisionsOf in revisions.tsx).
 */
type Kind = 'transformation' | 'library';
type Item = (Transformation | Library) & { kind: Kind };

const STARTERS: Record<Kind, string> = {
  transformation: 'export function transformEvent(event, metadata) {\n  return event;\n}\n',
  library: 'export function helper(value) {\n  return value;\n}\n',
};

/** A new revision of the item, or the item itself when it is new, through its kind's routes. */
async function saveRevision(kind: Kind, id: string | undefined, body: { name: string; code: string }): Promise<Item> {
  if (kind === 'transformation') {
    const saved = id ? await api.call('POST /transformations/{id}', { params: { id }, body }) : await api.call('POST /transformations', { body });
    return { ...saved, kind };
  }
  const saved = id ? await api.call('POST /libraries/{id}', { params: { id }, body }) : await api.call('POST /libraries', { body });
  return { ...saved, kind };
}

const SAMPLE = JSON.stringify([{ type: 'track', event: 'Signed Up', userId: 'u1', messageId: 'sample-1', properties: { plan: 'pro' } }], null, 2);

export function Transformations() {
  const transformations = useLoad(() => api.call('GET /transformations'));
  const libraries = useLoad(() => api.call('GET /libraries'));
  const [selected, setSelected] = useState<{ kind: Kind; id?: string }>({ kind: 'transformation' });
  // The editor starts afresh when another item is picked, not when a new one is saved under it.
  const [opened, setOpened] = useState(0);
  const pick = (next: { kind: Kind; id?: string }) => (setSelected(next), setOpened(opened + 1));
  const items: Item[] = [
    ...(transformations.data?.transformations ?? []).map((t) => ({ ...t, kind: 'transformation' as const })),
    ...(libraries.data?.libraries ?? []).map((l) => ({ ...l, kind: 'library' as const })),
  ];
  const item = items.find((i) => i.id === selected.id);
  const reload = async () => void (await Promise.all([transformations.reload(), libraries.reload()]));

  return (
    <div class="columns">
      <div>
        <ErrorBox error={transformations.error ?? libraries.error} />
        {(['transformation', 'library'] as const).map((kind) => (
          <>
            <h2>{kind === 'transformation' ? 'Transformations' : 'Libraries'}</h2>
            <ul class="picker" aria-label={kind === 'transformation' ? 'Transformations' : 'Libraries'}>
              {items
                .filter((i) => i.kind === kind)
                .map((i) => (
                  <li>
                    <button type="button" aria-pressed={i.id === item?.id} onClick={() => pick({ kind, id: i.id })}>
                      {i.name} <small>{i.publishedVersionId ? 'published' : 'draft'}</small>
                    </button>
                  </li>
                ))}
            </ul>
            <button type="button" class="secondary" onClick={() => pick({ kind })}>
              New {kind}
            </button>
          </>
        ))}
      </div>
      <Editor key={opened} kind={selected.kind} item={item} onSaved={async (id) => (await reload(), setSelected({ kind: selected.kind, id }))} />
    </div>
  );
}

function Editor({ kind, item, onSaved }: { kind: Kind; item?: Item; onSaved: (id: string) => Promise<void> }) {
  const [name, setName] = useState(item?.name ?? '');
  const [code, setCode] = useState(item?.code ?? STARTERS[kind]);
  const [samples, setSamples] = useState(SAMPLE);
  const [destinationIds, setDestinationIds] = useState<string[]>(item && 'destinations' in item ? (item.destinations ?? []).map((d) => d.id) : []);
  const [answer, setAnswer] = useState<{ title: string; body: TestAnswer; input?: unknown[] } | undefined>(undefined);
  const [refusedInput, setRefusedInput] = useState<unknown[] | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const destinations = useLoad(() => (kind === 'transformation' ? api.call('GET /v2/destinations') : Promise.resolve({ destinations: [] })));
  const action = useAction();

  const events = () => JSON.parse(samples) as Record<string, unknown>[];
  /** Saves a revision when the text differs from the stored one; every test and publish is of a revision. */
  const save = async (): Promise<Item> => {
    if (item && item.code === code && item.name === name) return item;
    return saveRevision(kind, item?.id, { name, code });
  };

  const run = () =>
    action.run(async () => {
      setNotice('');
      const input = events();
      const revision = await save();
      const body =
        kind === 'transformation'
          ? { transformations: [{ versionId: revision.versionId, testInput: input }] }
          : { libraries: [{ versionId: revision.versionId }] };
      const result = await api.call('POST /transformations/libraries/test', { body });
      setAnswer({ title: 'Run on sample events', body: result, input: kind === 'transformation' ? input : undefined });
      if (revision !== item) await onSaved(revision.id);
    });

  const publish = () =>
    action.run(async () => {
      setNotice('');
      setAnswer(undefined);
      const input = events();
      setRefusedInput(kind === 'transformation' ? input : undefined);
      const revision = await save();
      if (kind === 'transformation') {
        await api.call('POST /transformations/{id}', { params: { id: revision.id }, query: { publish: 'true' }, body: { events: input, destinationIds } });
      } else await api.call('POST /transformations/libraries/publish', { body: { libraries: [{ versionId: revision.versionId }] } });
      setNotice(`Published: its tests passed on ${kind === 'transformation' ? `${input.length} sample event(s)` : 'the transformations that import it'}.`);
      await onSaved(revision.id);
    });

  const refusal = refusalOf(action.error);
  return (
    <div>
      <div class="stack">
        <label for="item-name">Name</label>
        <input id="item-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      </div>
      {item && (
        <p class="hint">
          {kind === 'library' && 'importName' in item ? `import from "${item.importName}" · ` : ''}
          {!item.publishedVersionId
            ? 'not published'
            : item.publishedVersionId === item.versionId
              ? 'the latest revision is published'
              : 'an earlier revision is published (marked in Revisions); the latest is not'}
        </p>
      )}
      <h2>Code</h2>
      <CodeEditor value={code} onChange={setCode} label={`Code of the ${kind}`} />
      <div class="stack">
        <label for="samples">Sample events (a JSON array)</label>
        <textarea id="samples" rows={6} value={samples} onInput={(e) => setSamples(e.currentTarget.value)} />
      </div>
      {kind === 'transformation' && (
        <fieldset>
          <legend>Destinations it transforms for (set on publish)</legend>
          {(destinations.data?.destinations ?? []).map((d) => (
            <label class="row">
              <input
                type="checkbox"
                checked={destinationIds.includes(d.id)}
                onChange={(e) => setDestinationIds(e.currentTarget.checked ? [...destinationIds, d.id] : destinationIds.filter((id) => id !== d.id))}
              />
              {d.name}
            </label>
          ))}
        </fieldset>
      )}
      <div class="row">
        <button
          type="button"
          disabled={action.busy}
          onClick={() =>
            void action.run(async () => {
              const revision = await save();
              setNotice('Saved.');
              await onSaved(revision.id);
            })
          }
        >
          Save
        </button>
        <button type="button" disabled={action.busy} onClick={() => void run()}>
          Run on sample events
        </button>
        <button type="button" disabled={action.busy} onClick={() => void publish()}>
          Publish
        </button>
      </div>
      {notice && (
        <p class="ok" role="status">
          {notice}
        </p>
      )}
      <ErrorBox error={action.error} />
      {refusal && <TestResults title="Tests of the refused publish" answer={refusal} input={refusedInput} />}
      {answer && <TestResults title={answer.title} answer={answer.body} input={answer.input} />}
      {item && <Revisions kind={kind} id={item.id} latest={item.versionId} published={item.publishedVersionId} />}
    </div>
  );
}
