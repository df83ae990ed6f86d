import { useState } from 'preact/hooks';
import type { RouteResponse } from '../../../shared/contract/client-types';
import { api } from '../api';
import {
  draftOf,
  newCondition,
  newDraft,
  OPS,
  ruleOf,
  RULE_TYPES,
  type DraftCondition,
  type DraftRule,
  type Op,
  type RuleInput,
  type RuleType,
} from '../rule-drafts';
import { ErrorBox, Scroll, Section, useAction } from '../ui';

type DryRun = RouteResponse<'POST /v2/connections/{id}/rules/dry-run'>;

/** What each type does, shown beside its fields. */
const HELP: Record<RuleType, string> = {
  sample: 'Keeps this fraction of events, the same ones for the same messageId.',
  'drop-if': 'Stops events whose fields meet the conditions.',
  'allow-properties': 'Keeps only these paths inside properties, traits and context.traits.',
  'drop-properties': 'Removes these paths.',
  hash: 'Replaces the values at these paths by their SHA-256, salted with a workspace credential.',
  'truncate-ip': 'Zeroes the last part of context.ip and request_ip.',
  consent: 'Stops events whose consent (context.consentManagement) denies these ids.',
};

/**
 * The no-code rules of one connection: an ordered list of rules, each a small form; saved as a whole (the
 * API names the rule and field it refuses), and tried first on the source's recent events (a dry run).
 */
export function ConnectionRules({ connectionId, title, rules, onSaved }: { connectionId: string; title: string; rules: RuleInput[]; onSaved: () => void }) {
  const [drafts, setDrafts] = useState<DraftRule[]>(() => rules.map(draftOf));
  const [adding, setAdding] = useState<RuleType>('drop-if');
  const [limit, setLimit] = useState('100');
  const [dry, setDry] = useState<DryRun | undefined>(undefined);
  const [saved, setSaved] = useState(false);
  const action = useAction();

  /** Any edit: what was saved or tried before no longer describes the list. */
  const edit = (next: (all: DraftRule[]) => DraftRule[]) => {
    setSaved(false);
    setDry(undefined);
    setDrafts(next);
  };
  const change = (i: number, patch: Partial<DraftRule>) => edit((all) => all.map((d, k) => (k === i ? { ...d, ...patch } : d)));
  const move = (i: number, by: number) =>
    edit((all) => {
      const next = all.slice();
      const [rule] = next.splice(i, 1);
      next.splice(i + by, 0, rule!);
      return next;
    });
  const save = async () => {
    const done = await action.run(() => api.call('PUT /v2/connections/{id}/rules', { params: { id: connectionId }, body: { rules: drafts.map(ruleOf) } }));
    if (done) {
      setSaved(true);
      onSaved();
    }
  };
  const tryIt = async () => {
    const body = { rules: drafts.map(ruleOf), limit: Number(limit) };
    const answer = await action.run(() => api.call('POST /v2/connections/{id}/rules/dry-run', { params: { id: connectionId }, body }));
    if (answer) setDry(answer);
  };

  return (
    <Section title={`Rules: ${title}`}>
      <p>Applied in order to each event before the destination’s transformation.</p>
      {drafts.length === 0 && <p>No rule: every event goes on as it is.</p>}
      <ol class="rules" aria-label="Rules">
        {drafts.map((d, i) => (
          <li>
            <fieldset>
              <legend>
                Rule {i + 1}: {d.type}
              </legend>
              <p class="help">{HELP[d.type]}</p>
              <RuleFields draft={d} index={i} onChange={(patch) => change(i, patch)} />
              <div class="row">
                <button type="button" class="secondary" disabled={i === 0} onClick={() => move(i, -1)} aria-label={`Move rule ${i + 1} up`}>
                  Up
                </button>
                <button type="button" class="secondary" disabled={i === drafts.length - 1} onClick={() => move(i, 1)} aria-label={`Move rule ${i + 1} down`}>
                  Down
                </button>
                <button type="button" class="secondary" onClick={() => edit((all) => all.filter((_, k) => k !== i))} aria-label={`Remove rule ${i + 1}`}>
                  Remove
                </button>
              </div>
            </fieldset>
          </li>
        ))}
      </ol>
      <div class="row">
        <label for="rule-type">New rule</label>
        <select id="rule-type" value={adding} onChange={(e) => setAdding(e.currentTarget.value as RuleType)}>
          {RULE_TYPES.map((t) => (
            <option value={t}>{t}</option>
          ))}
        </select>
        <button type="button" class="secondary" onClick={() => edit((all) => [...all, newDraft(adding)])}>
          Add rule
        </button>
      </div>
      <div class="row">
        <button type="button" disabled={action.busy} onClick={() => void save()}>
          Save rules
        </button>
        <label for="dry-run-limit">Recent events</label>
        <input id="dry-run-limit" type="number" min="1" max="1000" value={limit} onInput={(e) => setLimit(e.currentTarget.value)} />
        <button type="button" class="secondary" disabled={action.busy} onClick={() => void tryIt()}>
          Dry run
        </button>
        {saved && <span role="status">Saved.</span>}
      </div>
      <ErrorBox error={action.error} />
      {dry && <DryRunTable dry={dry} />}
    </Section>
  );
}

function DryRunTable({ dry }: { dry: DryRun }) {
  return (
    <>
      <p data-testid="dry-run-summary">
        Of the last {dry.events} events, {dry.passed} would pass every rule{dry.errors > 0 ? ` and ${dry.errors} would fail` : ''}.
      </p>
      <Scroll label="Dry run, scrollable">
        <table aria-label="Dry run">
          <thead>
            <tr>
              <th>Rule</th>
              <th>Type</th>
              <th>Would stop</th>
            </tr>
          </thead>
          <tbody>
            {dry.rules.map((r) => (
              <tr>
                <td>{r.label}</td>
                <td>{r.type}</td>
                <td>{`${r.stopped} of ${dry.events}`}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Scroll>
    </>
  );
}

/** A text box named in full for assistive technology (`Rule 2 condition 1 path`), shown by its last words. */
function Text({ label, value, onInput, placeholder }: { label: string; value: string; onInput: (v: string) => void; placeholder?: string }) {
  return (
    <label>
      <span aria-hidden="true">{shortOf(label)}</span>
      <input aria-label={label} value={value} placeholder={placeholder} onInput={(e) => onInput(e.currentTarget.value)} />
    </label>
  );
}

const shortOf = (label: string) => label.replace(/^Rule \d+ (condition \d+ )?/, '');

function Choice({ label, value, options, onChange }: { label: string; value: string; options: [string, string][]; onChange: (v: string) => void }) {
  return (
    <label>
      <span aria-hidden="true">{shortOf(label)}</span>
      <select aria-label={label} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {options.map(([v, text]) => (
          <option value={v}>{text}</option>
        ))}
      </select>
    </label>
  );
}

function RuleFields({ draft: d, index, onChange }: { draft: DraftRule; index: number; onChange: (patch: Partial<DraftRule>) => void }) {
  const n = index + 1;
  return (
    <div class="rule-fields">
      <Text label={`Rule ${n} name`} value={d.name} onInput={(name) => onChange({ name })} placeholder={`${n}-${d.type}`} />
      {d.type === 'sample' && <Text label={`Rule ${n} fraction`} value={d.fraction} onInput={(fraction) => onChange({ fraction })} placeholder="0.1" />}
      {(d.type === 'allow-properties' || d.type === 'drop-properties' || d.type === 'hash') && (
        <Text label={`Rule ${n} paths`} value={d.paths} onInput={(paths) => onChange({ paths })} placeholder="properties.email, context.traits.phone" />
      )}
      {d.type === 'hash' && <Text label={`Rule ${n} salt credential`} value={d.saltCredential} onInput={(saltCredential) => onChange({ saltCredential })} />}
      {d.type === 'consent' && <ConsentFields draft={d} n={n} onChange={onChange} />}
      {d.type === 'drop-if' && <Conditions draft={d} n={n} onChange={onChange} />}
    </div>
  );
}

function ConsentFields({ draft: d, n, onChange }: { draft: DraftRule; n: number; onChange: (patch: Partial<DraftRule>) => void }) {
  return (
    <>
      <Text label={`Rule ${n} consent ids`} value={d.consentIds} onInput={(consentIds) => onChange({ consentIds })} placeholder="C0002, C0004" />
      <Choice
        label={`Rule ${n} resolution`}
        value={d.resolutionStrategy}
        options={[
          ['', 'the event’s'],
          ['and', 'and: no id denied'],
          ['or', 'or: not every id denied'],
        ]}
        onChange={(v) => onChange({ resolutionStrategy: v as DraftRule['resolutionStrategy'] })}
      />
      <Text label={`Rule ${n} provider`} value={d.provider} onInput={(provider) => onChange({ provider })} placeholder="any" />
      <Choice
        label={`Rule ${n} undecided events`}
        value={d.undecided}
        options={[
          ['deliver', 'deliver'],
          ['drop', 'drop'],
        ]}
        onChange={(v) => onChange({ undecided: v as DraftRule['undecided'] })}
      />
    </>
  );
}

function Conditions({ draft: d, n, onChange }: { draft: DraftRule; n: number; onChange: (patch: Partial<DraftRule>) => void }) {
  const set = (k: number, patch: Partial<DraftCondition>) => onChange({ conditions: d.conditions.map((c, j) => (j === k ? { ...c, ...patch } : c)) });
  return (
    <>
      <Choice
        label={`Rule ${n} match`}
        value={d.match}
        options={[
          ['all', 'all conditions'],
          ['any', 'any condition'],
        ]}
        onChange={(v) => onChange({ match: v as DraftRule['match'] })}
      />
      {d.conditions.map((c, k) => {
        const label = `Rule ${n} condition ${k + 1}`;
        return (
          <div class="row condition" role="group" aria-label={label}>
            <Text label={`${label} path`} value={c.path} onInput={(path) => set(k, { path })} placeholder="event" />
            <Choice label={`${label} test`} value={c.op} options={OPS.map((op) => [op, op])} onChange={(v) => set(k, { op: v as Op })} />
            {c.op !== 'exists' && (
              <Text label={`${label} value`} value={c.value} onInput={(value) => set(k, { value })} placeholder={c.op === 'in' ? 'a, b' : ''} />
            )}
            <label>
              <input type="checkbox" aria-label={`${label} negated`} checked={c.not} onChange={(e) => set(k, { not: e.currentTarget.checked })} />
              <span aria-hidden="true">not</span>
            </label>
            <button
              type="button"
              class="secondary"
              disabled={d.conditions.length === 1}
              onClick={() => onChange({ conditions: d.conditions.filter((_, j) => j !== k) })}
              aria-label={`Remove ${label}`}
            >
              Remove
            </button>
          </div>
        );
      })}
      <button type="button" class="secondary" onClick={() => onChange({ conditions: [...d.conditions, newCondition()] })}>
        Add condition
      </button>
    </>
  );
}
