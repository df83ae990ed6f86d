import { useState } from 'preact/hooks';
import type { EventMetadata, EventModel } from '../../../shared/contract/client-types';
import { api } from '../api';
import { planKnows, specOfModel, type Spec } from '../plan-keys';
import { highCardinality, schemaChanges, TOP_VALUES, treeRows, type Distinct } from '../schema-tree';
import { ErrorBox, Json, Scroll, Section, useLoad, when } from '../ui';

/** Event models and versions of a source: schema tree, key presence, frequent values, JSON Schema download. */
export function Schemas() {
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const [sourceId, setSourceId] = useState<string | undefined>(undefined);
  const source = sources.data?.sources.find((s) => s.id === sourceId) ?? sources.data?.sources[0];
  const models = useLoad(
    () => (source ? api.call('GET /v2/sources/{id}/event-models', { params: { id: source.id } }) : Promise.resolve([])),
    [source?.id],
    5000,
  );
  const [eventId, setEventId] = useState<string | undefined>(undefined);
  const model = models.data?.find((m) => m.EventID === eventId);
  // The source's tracking plan version, if it has one: the schema marks the keys it does not know.
  const link = source?.trackingPlan;
  const plan = useLoad(
    () =>
      link ? api.call('GET /v2/tracking-plans/{id}/versions/{version}', { params: { id: link.planId, version: link.version } }) : Promise.resolve(undefined),
    [link?.planId, link?.version],
  );
  const specs = plan.data?.version.specs as Spec[] | undefined;

  return (
    <div class="columns">
      <div>
        <ErrorBox error={sources.error ?? models.error} />
        <label for="schema-source">Source</label>
        <select id="schema-source" value={source?.id} onChange={(e) => (setSourceId(e.currentTarget.value), setEventId(undefined))}>
          {sources.data?.sources.map((s) => (
            <option value={s.id}>{s.name}</option>
          ))}
        </select>
        <ul class="picker" aria-label="Event models">
          {models.data?.map((m) => (
            <li>
              <button type="button" aria-pressed={m.EventID === model?.EventID} onClick={() => setEventId(m.EventID)}>
                {m.EventType}
                {m.EventIdentifier ? `: ${m.EventIdentifier}` : ''} <small>{m.TotalCount} events</small>
              </button>
            </li>
          ))}
        </ul>
        {models.data?.length === 0 && <p>No event captured yet for this source.</p>}
      </div>
      {model ? <ModelView key={model.EventID} model={model} specs={specs} /> : <p>Choose an event model.</p>}
    </div>
  );
}

function ModelView({ model, specs }: { model: EventModel; specs?: Spec[] }) {
  const spec = specs && specOfModel(specs, model.EventType, model.EventIdentifier);
  const versions = useLoad(() => api.call('GET /v2/event-models/{EventID}/versions', { params: { EventID: model.EventID } }));
  const counts = useLoad(() => api.call('GET /v2/event-models/{EventID}/key-counts', { params: { EventID: model.EventID } }));
  const metadata = useLoad(() => api.call('GET /v2/event-models/{EventID}/metadata', { params: { EventID: model.EventID } }));
  const [versionId, setVersionId] = useState<string | undefined>(undefined);
  const download = async () => {
    const schema = await api.call('GET /v2/event-models/{EventID}/json-schema', { params: { EventID: model.EventID } });
    const link = document.createElement('a');
    link.href = URL.createObjectURL(new Blob([JSON.stringify(schema, null, 2)], { type: 'application/schema+json' }));
    link.download = `${model.EventIdentifier || model.EventType}.schema.json`;
    link.click();
    URL.revokeObjectURL(link.href);
  };
  return (
    <div>
      <Section title={`${model.EventType}${model.EventIdentifier ? `: ${model.EventIdentifier}` : ''}`}>
        <p>
          {model.TotalCount} events · last seen {when(model.LastSeen)} ·{' '}
          <button type="button" class="secondary" onClick={() => void download()}>
            Download JSON Schema
          </button>
        </p>
        <ErrorBox error={counts.error ?? metadata.error ?? versions.error} />
        <h3>Schema and key presence</h3>
        {specs && (
          <p class="hint">{spec ? "Keys marked “not in plan” are not in the source's tracking plan." : "This event is not in the source's tracking plan."}</p>
        )}
        <SchemaTree schema={model.Schema} counts={counts.data ?? {}} total={model.TotalCount} spec={spec} />
      </Section>
      <Section title="Frequent values">
        {metadata.data && <FrequentValues values={metadata.data.FrequentValues} distinct={metadata.data.DistinctValues} />}
      </Section>
      <Section title="Versions">
        <ul class="picker" aria-label="Versions">
          {newestFirst(versions.data ?? []).map((v) => (
            <li>
              <button type="button" aria-pressed={v.VersionID === versionId} onClick={() => setVersionId(v.VersionID)}>
                Version {v.ID}{' '}
                <small>
                  {v.TotalCount} events · {Object.keys(v.Schema).length} keys · first seen {when(v.FirstSeen)} · last seen {when(v.LastSeen)}
                </small>
              </button>
            </li>
          ))}
        </ul>
        {versionId && <VersionView versionId={versionId} {...neighbours(versions.data ?? [], versionId)} />}
      </Section>
      <Section title="Sampled events">{metadata.data && <Json value={metadata.data.SampledEvents} />}</Section>
    </div>
  );
}

/** Dotted keys as a tree (`properties.plan` under a row of its own `properties`), each with its JSON types and presence. */
function SchemaTree({
  schema,
  counts,
  total,
  label = 'Schema',
  spec,
}: {
  schema: Record<string, string>;
  counts: Record<string, number>;
  total: number;
  label?: string;
  /** The tracking plan's spec of the event: keys it does not list are marked. */
  spec?: Spec;
}) {
  const rows = treeRows(schema);
  return (
    <Scroll label={`${label}, scrollable`}>
      <table aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Key</th>
            <th scope="col">Type</th>
            <th scope="col">Present in</th>
            {spec && <th scope="col">Tracking plan</th>}
          </tr>
        </thead>
        <tbody>
          {rows.map(({ key, name, depth, type, leaf }) => {
            const present = leaf ? counts[key] : undefined;
            return (
              <tr key={key} class={leaf ? undefined : 'parent'}>
                <td style={{ paddingLeft: `${0.5 + depth * 1.2}rem` }}>
                  <code>{name}</code>
                  {depth > 0 && leaf && <small class="hint"> ({key})</small>}
                </td>
                <td>{type}</td>
                <td>{present === undefined ? '' : `${present} of ${total} (${Math.round((present / Math.max(total, 1)) * 100)} %)`}</td>
                {spec && <td>{leaf && planKnows(spec, key) === false ? <span class="unplanned">not in plan</span> : ''}</td>}
              </tr>
            );
          })}
        </tbody>
      </table>
    </Scroll>
  );
}

/** Each key's most frequent values (the top few); a key whose values are nearly all distinct says so instead. */
function FrequentValues({ values, distinct }: { values: EventMetadata['FrequentValues']; distinct: Record<string, Distinct> }) {
  const keys = [...new Set([...Object.keys(values), ...Object.keys(distinct).filter((key) => highCardinality(distinct[key]))])].sort();
  if (keys.length === 0) return <p>No frequent value yet.</p>;
  return (
    <>
      {keys.map((key) => {
        const many = highCardinality(distinct[key]);
        const listed = values[key] ?? [];
        return (
          <div aria-label={`Frequent values of ${key}`} role="group" key={key}>
            <h3>
              <code>{key}</code>
            </h3>
            {many ? (
              <p class="hint">{many}</p>
            ) : (
              <>
                {listed.slice(0, TOP_VALUES).map((v) => (
                  <div class="bar">
                    <span class="label">{v.Value}</span>
                    <span class="fill" style={{ width: `${Math.max(2, v.Frequency * 300)}px` }} />
                    <span>{(v.Frequency * 100).toFixed(1)} %</span>
                  </div>
                ))}
                {listed.length > TOP_VALUES && <p class="hint">and {listed.length - TOP_VALUES} less frequent values</p>}
              </>
            )}
          </div>
        );
      })}
    </>
  );
}

type Version = { ID: number; VersionID: string; FirstSeen: string; Schema: Record<string, string> };

/** Versions as the page lists them: the newest (last first seen) first. */
const newestFirst = <V extends Version>(versions: V[]): V[] => [...versions].sort((a, b) => b.FirstSeen.localeCompare(a.FirstSeen) || b.ID - a.ID);

/** A version's schema and the version before it (first seen before it), if any. */
function neighbours(versions: Version[], versionId: string): { schema: Record<string, string>; previous?: Version } {
  const ordered = [...versions].sort((a, b) => a.FirstSeen.localeCompare(b.FirstSeen) || a.ID - b.ID);
  const at = ordered.findIndex((v) => v.VersionID === versionId);
  return { schema: ordered[at]?.Schema ?? {}, previous: at > 0 ? ordered[at - 1] : undefined };
}

/** Keys added, removed or of another type than in the version before. */
function VersionChanges({ schema, previous }: { schema: Record<string, string>; previous?: Version }) {
  if (!previous) return <p>The first version of this event: no version before it.</p>;
  const changes = schemaChanges(previous.Schema, schema);
  return (
    <>
      <h3>Changes from version {previous.ID}</h3>
      {changes.length === 0 ? (
        <p>No key added, removed or of another type.</p>
      ) : (
        <Scroll label="Changes from the version before, scrollable">
          <table aria-label="Changes from the version before">
            <thead>
              <tr>
                <th scope="col">Key</th>
                <th scope="col">Change</th>
                <th scope="col">Version {previous.ID}</th>
                <th scope="col">This version</th>
              </tr>
            </thead>
            <tbody>
              {changes.map((c) => (
                <tr>
                  <td>
                    <code>{c.key}</code>
                  </td>
                  <td>{c.change}</td>
                  <td>{c.before ?? '—'}</td>
                  <td>{c.after ?? '—'}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </Scroll>
      )}
    </>
  );
}

function VersionView({ versionId, schema, previous }: { versionId: string; schema: Record<string, string>; previous?: Version }) {
  const missing = useLoad(() => api.call('GET /v2/event-versions/{VersionID}/missing-keys', { params: { VersionID: versionId } }), [versionId]);
  const metadata = useLoad(() => api.call('GET /v2/event-versions/{VersionID}/metadata', { params: { VersionID: versionId } }), [versionId]);
  return (
    <div aria-label="Version" role="region">
      <ErrorBox error={missing.error ?? metadata.error} />
      <VersionChanges schema={schema} previous={previous} />
      <p>Missing from this version: {missing.data?.length ? missing.data.join(', ') : 'none'}</p>
      <SchemaTree schema={schema} counts={{}} total={metadata.data?.TotalCount ?? 0} label="Version schema" />
      {metadata.data && <FrequentValues values={metadata.data.FrequentValues} distinct={metadata.data.DistinctValues} />}
    </div>
  );
}
