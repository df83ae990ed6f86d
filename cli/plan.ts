import type { Live } from './live';
import { isCredentialRef } from './secrets';
import { keyOf, same, type CredentialState, type State, type StateKind, type StateKinds } from './state';

/**
 * The difference between the files and the workspace, per resource: create, update (the fields that change),
 * delete. Computed, never applied here (apply.ts).
 */
export interface FieldChange {
  field: string;
  from: unknown;
  to: unknown;
  /** A secret's values are compared, never shown. */
  secret?: boolean;
  /** Shown as a line diff (code, rules, event specs). */
  text?: boolean;
  /** The API cannot change it in place (a source's or destination's type). */
  fixed?: boolean;
  /** A credential's value set again from the environment (--rotate), whether or not it differs. */
  rotate?: boolean;
}
export interface Change<K extends StateKind = StateKind> {
  kind: K;
  key: string;
  action: 'create' | 'update' | 'delete';
  fields: FieldChange[];
  desired?: StateKinds[K];
  live?: StateKinds[K];
  /** What plan found out by asking the API: test results, a rules dry run. */
  notes: string[];
  /** A check that failed (a transformation's tests): apply refuses it. */
  failed?: boolean;
}
export interface Plan {
  changes: Change[];
  live: Live;
}

/** The order creations and updates are applied in (each kind's references exist before it); deletions reversed. */
export const APPLY_ORDER: StateKind[] = [
  'credentials',
  'libraries',
  'trackingPlans',
  'sources',
  'destinations',
  'transformations',
  'connections',
  'alertRules',
];
export const DELETE_ORDER: StateKind[] = [
  'alertRules',
  'connections',
  'destinations',
  'transformations',
  'libraries',
  'sources',
  'trackingPlans',
  'credentials',
];

export const SINGULAR: Record<StateKind, string> = {
  credentials: 'credential',
  sources: 'source',
  destinations: 'destination',
  connections: 'connection',
  transformations: 'transformation',
  libraries: 'library',
  trackingPlans: 'tracking plan',
  alertRules: 'alert rule',
};

const IGNORED = new Set(['key', 'secretFields', 'tests', 'fromEventModels']);
const TEXT_FIELDS = new Set(['code', 'rules', 'specs']);
const FIXED_FIELDS = new Set(['type']);

function fieldChanges(kind: StateKind, desired: Record<string, unknown>, live: Record<string, unknown>): FieldChange[] {
  const changes: FieldChange[] = [];
  const secrets = new Set([...((desired.secretFields as string[]) ?? []), ...((live.secretFields as string[]) ?? [])]);
  for (const field of Object.keys(desired)) {
    if (IGNORED.has(field) || same(desired[field], live[field])) continue;
    if (kind === 'trackingPlans' && field === 'specs' && desired.specs === null) continue;
    if ((field === 'config' || field === 'channel') && typeof desired[field] === 'object') {
      const to = desired[field] as Record<string, unknown>;
      const from = (live[field] ?? {}) as Record<string, unknown>;
      for (const name of [...new Set([...Object.keys(from), ...Object.keys(to)])].sort()) {
        // A secret held inline (made outside weir) is never shown; a reference to a credential is.
        const inline = secrets.has(name) && !(isCredentialRef(from[name]) && isCredentialRef(to[name]));
        if (!same(from[name], to[name])) changes.push({ field: `${field}.${name}`, from: from[name], to: to[name], ...(inline && { secret: true }) });
      }
      continue;
    }
    changes.push({
      field,
      from: live[field],
      to: desired[field],
      ...(TEXT_FIELDS.has(field) && { text: true }),
      ...(FIXED_FIELDS.has(field) && { fixed: true }),
    });
  }
  return changes;
}

/** The plan version a source's link should name: the pinned one, else the plan's latest once applied. */
function linkVersions(desired: State, live: Live, planChanges: Change[]): State['sources'] {
  const changing = new Set(planChanges.filter((c) => c.kind === 'trackingPlans').map((c) => c.key));
  return desired.sources.map((source) => {
    const link = source.trackingPlan;
    if (!link || link.version !== undefined) return source;
    const latest = live.planVersions.get(link.plan);
    const version = latest === undefined ? 1 : latest + (changing.has(link.plan) ? 1 : 0);
    return { ...source, trackingPlan: { ...link, version } };
  });
}

/**
 * A credential's changes. A secret's value cannot be read back: apply sets it when it creates the credential,
 * and sets every declared value again with --rotate (plan says so, never showing it). A value that is not
 * secret is compared; a change of `secret` sets the value with it.
 */
function credentialFields(desired: CredentialState, live: CredentialState, rotate: boolean): FieldChange[] {
  const fields: FieldChange[] = [];
  if (desired.isSecret !== live.isSecret) fields.push({ field: 'secret', from: live.isSecret, to: desired.isSecret });
  const differs = !desired.isSecret && !live.isSecret && desired.value !== live.value;
  if (rotate || differs || fields.length > 0)
    fields.push({ field: 'value', from: live.value, to: desired.value, secret: true, ...(rotate && { rotate: true }) });
  return fields;
}

function diffKind<K extends StateKind>(kind: K, desired: StateKinds[K][], live: StateKinds[K][], rotate = false): Change<K>[] {
  const liveByKey = new Map(live.map((item) => [keyOf(kind, item), item]));
  const desiredKeys = new Set(desired.map((item) => keyOf(kind, item)));
  const changes: Change<K>[] = [];
  for (const item of desired) {
    const key = keyOf(kind, item);
    const current = liveByKey.get(key);
    if (!current) {
      changes.push({ kind, key, action: 'create', fields: [], desired: item, notes: [] });
      continue;
    }
    const fields =
      kind === 'credentials'
        ? credentialFields(item as CredentialState, current as CredentialState, rotate)
        : fieldChanges(kind, item as unknown as Record<string, unknown>, current as unknown as Record<string, unknown>);
    if (fields.length > 0) changes.push({ kind, key, action: 'update', fields, desired: item, live: current, notes: [] });
  }
  for (const item of live) {
    const key = keyOf(kind, item);
    if (!desiredKeys.has(key)) changes.push({ kind, key, action: 'delete', fields: [], live: item, notes: [] });
  }
  return changes;
}

export function planChanges(desired: State, live: Live, options: { rotate?: boolean } = {}): Plan {
  const byKind = (kind: StateKind, state: State = desired) =>
    diffKind(kind, state[kind] as never[], live.state[kind] as never[], options.rotate && kind === 'credentials') as Change[];
  const plans = byKind('trackingPlans');
  const withVersions: State = { ...desired, sources: linkVersions(desired, live, plans) };
  const changes = APPLY_ORDER.flatMap((kind) => (kind === 'trackingPlans' ? plans : byKind(kind, withVersions)));
  const creates = changes.filter((c) => c.action !== 'delete');
  const deletes = DELETE_ORDER.flatMap((kind) => changes.filter((c) => c.kind === kind && c.action === 'delete'));
  return { changes: [...creates, ...deletes], live };
}
