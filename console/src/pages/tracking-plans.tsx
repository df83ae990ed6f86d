import { useState } from 'preact/hooks';
import type { RouteResponse } from '../../../shared/contract/client-types';
import { api } from '../api';
import { diffRows, eventLabel } from '../plan-table';
import { ErrorBox, Scroll, Section, useAction, useLoad, when } from '../ui';
import { SpecsEditor } from './plan-editor';
import { PlanTrend } from './plan-trend';

type Plan = RouteResponse<'GET /v2/tracking-plans/{id}'>['trackingPlan'];
type Stats = RouteResponse<'GET /v2/tracking-plans/{id}/stats'>;
const VIOLATIONS = ['Unplanned-Event', 'Required-Missing', 'Datatype-Mismatch', 'Additional-Properties', 'Unknown-Violation'] as const;

/** Tracking plans: made from a source's captured event models in one click, specs edited as versions, diffs, stats, violations over time and samples, sources held to them. */
export function TrackingPlans() {
  const plans = useLoad(() => api.call('GET /v2/tracking-plans'));
  const [planId, setPlanId] = useState<string | undefined>(undefined);
  const chosen = plans.data?.trackingPlans.find((p) => p.id === planId) ?? plans.data?.trackingPlans[0];
  return (
    <div class="columns">
      <div>
        <ErrorBox error={plans.error} />
        <ul class="picker" aria-label="Tracking plans">
          {plans.data?.trackingPlans.map((p) => (
            <li>
              <button type="button" aria-pressed={p.id === chosen?.id} onClick={() => setPlanId(p.id)}>
                {p.name} <small>version {p.version}</small>
              </button>
            </li>
          ))}
        </ul>
        {plans.data?.trackingPlans.length === 0 && <p>No tracking plan yet.</p>}
        <FromModels onCreated={(id) => void plans.reload().then(() => setPlanId(id))} />
      </div>
      {chosen ? (
        <PlanView key={`${chosen.id}:${chosen.version}`} id={chosen.id} onChanged={() => void plans.reload()} />
      ) : (
        <p>Choose or create a tracking plan.</p>
      )}
    </div>
  );
}

/** A new plan from a source's captured event models: every model chosen, as the source's events showed them. */
function FromModels({ onCreated }: { onCreated: (id: string) => void }) {
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const [sourceId, setSourceId] = useState<string | undefined>(undefined);
  const source = sources.data?.sources.find((s) => s.id === sourceId) ?? sources.data?.sources[0];
  const models = useLoad(() => (source ? api.call('GET /v2/sources/{id}/event-models', { params: { id: source.id } }) : Promise.resolve([])), [source?.id]);
  const [name, setName] = useState('');
  const action = useAction();
  const create = () =>
    action.run(async () => {
      const fromEventModels = (models.data ?? []).filter((m) => m.EventType !== 'alias').map((m) => m.EventID);
      const { trackingPlan } = await api.call('POST /v2/tracking-plans', { body: { name: name || `${source?.name ?? 'Source'} plan`, fromEventModels } });
      setName('');
      onCreated(trackingPlan.id);
    });
  return (
    <Section title="New plan from captured events">
      <ErrorBox error={sources.error ?? models.error ?? action.error} />
      <label for="plan-source">Source</label>
      <select id="plan-source" value={source?.id} onChange={(e) => setSourceId(e.currentTarget.value)}>
        {sources.data?.sources.map((s) => (
          <option value={s.id}>{s.name}</option>
        ))}
      </select>
      <p>{models.data?.length ?? 0} event models captured</p>
      <label for="plan-name">Plan name</label>
      <input id="plan-name" value={name} onInput={(e) => setName(e.currentTarget.value)} />
      <button type="button" disabled={action.busy || !models.data?.length} onClick={() => void create()}>
        Create plan from captured events
      </button>
    </Section>
  );
}

function PlanView({ id, onChanged }: { id: string; onChanged: () => void }) {
  const plan = useLoad(() => api.call('GET /v2/tracking-plans/{id}', { params: { id } }), [id]);
  return (
    <div>
      <ErrorBox error={plan.error} />
      {plan.data && (
        <>
          <Section title={`${plan.data.trackingPlan.name} · version ${plan.data.trackingPlan.version}`}>
            <p>
              {plan.data.trackingPlan.specs.length} events planned · changed {when(plan.data.trackingPlan.updatedAt)}
            </p>
          </Section>
          <SpecsEditor plan={plan.data.trackingPlan} onSaved={onChanged} />
          <Versions plan={plan.data.trackingPlan} />
          <SourceLink plan={plan.data.trackingPlan} />
          <PlanStats id={id} />
          <PlanTrend id={id} />
        </>
      )}
    </div>
  );
}

/** Every version, and what changed between two: one row per event added or removed and per property changed, before and after. */
function Versions({ plan }: { plan: Plan }) {
  const versions = useLoad(() => api.call('GET /v2/tracking-plans/{id}/versions', { params: { id: plan.id } }), [plan.id, plan.version]);
  const [from, setFrom] = useState(Math.max(1, plan.version - 1));
  const [to, setTo] = useState(plan.version);
  const changes = useLoad(async () => {
    const read = (version: number) => api.call('GET /v2/tracking-plans/{id}/versions/{version}', { params: { id: plan.id, version } });
    const [diff, before, after] = await Promise.all([
      api.call('GET /v2/tracking-plans/{id}/diff', { params: { id: plan.id }, query: { from, to } }),
      read(from),
      read(to),
    ]);
    return diffRows(diff, before.version.specs, after.version.specs);
  }, [plan.id, from, to]);
  const numbers = (versions.data?.versions ?? []).map((v) => v.version);
  return (
    <Section title="Versions">
      <ErrorBox error={versions.error ?? changes.error} />
      <ul aria-label="Versions">
        {versions.data?.versions.map((v) => (
          <li>
            Version {v.version} · {v.events} events · {when(v.createdAt)}
          </li>
        ))}
      </ul>
      <div class="row">
        <label for="plan-from">Compare version</label>
        <select id="plan-from" value={from} onChange={(e) => setFrom(Number(e.currentTarget.value))}>
          {numbers.map((n) => (
            <option value={n}>{n}</option>
          ))}
        </select>
        <label for="plan-to">with</label>
        <select id="plan-to" value={to} onChange={(e) => setTo(Number(e.currentTarget.value))}>
          {numbers.map((n) => (
            <option value={n}>{n}</option>
          ))}
        </select>
      </div>
      {changes.data &&
        (changes.data.length === 0 ? (
          <p>No change in the specs.</p>
        ) : (
          <Scroll label="Changes between the two versions, scrollable">
            <table aria-label="Changes between the two versions">
              <thead>
                <tr>
                  {['Event', 'Property', 'Change', `Version ${from}`, `Version ${to}`].map((h) => (
                    <th scope="col">{h}</th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {changes.data.map((c) => (
                  <tr class={`change-${c.change.split(' ').pop()}`}>
                    <td>{c.event}</td>
                    <td>{c.property ? <code>{c.property}</code> : ''}</td>
                    <td>{c.change}</td>
                    <td>{c.before}</td>
                    <td>{c.after}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </Scroll>
        ))}
    </Section>
  );
}

/** Holds a source to this plan's latest version with a mode. */
function SourceLink({ plan }: { plan: Plan }) {
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const [sourceId, setSourceId] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<'observe' | 'drop-event' | 'omit-unplanned'>('observe');
  const [unplanned, setUnplanned] = useState<'allow' | 'drop'>('allow');
  const action = useAction();
  const source = sources.data?.sources.find((s) => s.id === sourceId) ?? sources.data?.sources[0];
  const held = sources.data?.sources.filter((s) => s.trackingPlan?.planId === plan.id) ?? [];
  const connect = () =>
    action.run(async () => {
      if (!source) return;
      await api.call('PUT /v2/sources/{id}/tracking-plan', {
        params: { id: source.id },
        body: { planId: plan.id, version: plan.version, mode, unplannedEvents: unplanned },
      });
      await sources.reload();
    });
  return (
    <Section title="Sources held to this plan">
      <ErrorBox error={sources.error ?? action.error} />
      <ul aria-label="Sources held to this plan">
        {held.map((s) => (
          <li>
            {s.name}: version {s.trackingPlan?.version}, {s.trackingPlan?.mode}, unplanned events{' '}
            {s.trackingPlan?.unplannedEvents === 'drop' ? 'dropped' : 'allowed'}
          </li>
        ))}
        {held.length === 0 && <li>None</li>}
      </ul>
      <div class="row">
        <label for="link-source">Source</label>
        <select id="link-source" value={source?.id} onChange={(e) => setSourceId(e.currentTarget.value)}>
          {sources.data?.sources.map((s) => (
            <option value={s.id}>{s.name}</option>
          ))}
        </select>
        <label for="link-mode">Mode</label>
        <select id="link-mode" value={mode} onChange={(e) => setMode(e.currentTarget.value as typeof mode)}>
          <option value="observe">observe: mark violations, deliver all</option>
          <option value="drop-event">drop-event: events with violations go nowhere</option>
          <option value="omit-unplanned">omit-unplanned: drop unplanned properties</option>
        </select>
        <label for="link-unplanned">Unplanned events</label>
        <select id="link-unplanned" value={unplanned} onChange={(e) => setUnplanned(e.currentTarget.value as typeof unplanned)}>
          <option value="allow">allow</option>
          <option value="drop">drop</option>
        </select>
        <button type="button" disabled={action.busy || !source} onClick={() => void connect()}>
          Hold source to version {plan.version}
        </button>
      </div>
    </Section>
  );
}

/** What the plan's validation counted, per source, version and event; read again every 5 s. */
function PlanStats({ id }: { id: string }) {
  const stats = useLoad(() => api.call('GET /v2/tracking-plans/{id}/stats', { params: { id }, query: {} }), [id], 5000);
  const sources = useLoad(() => api.call('GET /v2/sources'));
  const nameOf = (sourceId: string) => (sources.data ? (sources.data.sources.find((s) => s.id === sourceId)?.name ?? 'a deleted source') : '');
  // The violation types in one column, those counted only: the table fits a laptop's width, and a phone's in its box.
  const byType = (c: Stats['totals']) =>
    VIOLATIONS.filter((v) => (c.violations[v] ?? 0) > 0)
      .map((v) => `${v}: ${c.violations[v]}`)
      .join(', ') || 'none';
  const cells = (c: Stats['totals']) => [...[c.total, c.validated, c.withViolations, c.dropped].map((n) => <td class="number">{n}</td>), <td>{byType(c)}</td>];
  return (
    <Section title="Stats">
      <ErrorBox error={stats.error} />
      <Scroll label="Tracking plan stats, scrollable">
        <table aria-label="Tracking plan stats">
          <thead>
            <tr>
              {['Source', 'Version', 'Event', 'Total', 'Validated', 'With violations', 'Dropped', 'Violations by type'].map((h) => (
                <th scope="col">{h}</th>
              ))}
            </tr>
          </thead>
          <tbody>
            {stats.data?.rows.map((r) => (
              <tr>
                <td>{nameOf(r.sourceId)}</td>
                <td>{r.version}</td>
                <td>{eventLabel(r)}</td>
                {cells(r)}
              </tr>
            ))}
            {stats.data && (
              <tr>
                <th scope="row" colSpan={3}>
                  All
                </th>
                {cells(stats.data.totals)}
              </tr>
            )}
          </tbody>
        </table>
      </Scroll>
    </Section>
  );
}
