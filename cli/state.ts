import type { Origin } from './spec/types';

/**
 * A workspace in one canonical form, whether read from the files (desired) or from the API (live): defaults
 * filled in, references by key, so the two compare field by field.
 */
/**
 * A workspace credential. Its value is the environment's (desired) or, for one that is not secret, the API's
 * (live); a secret's value cannot be read back, so plan compares it only with --rotate (plan.ts).
 */
export interface CredentialState {
  key: string;
  isSecret: boolean;
  value?: string;
  /** The environment variable the files take the value from. */
  env?: string;
}
export interface SourceState {
  key: string;
  type: string;
  enabled: boolean;
  inboundLimit: number | null;
  ingestShards: number;
  deduplicationWindowHours: number;
  trackingPlan: { plan: string; mode: string; unplannedEvents: string; version?: number } | null;
}
export interface DestinationState {
  key: string;
  type: string;
  enabled: boolean;
  config: Record<string, unknown>;
  /** Config fields its type marks secret: each names a credential, { credential: NAME }; a value held inline is never shown. */
  secretFields: string[];
  transformation: string | null;
}
export interface ConnectionState {
  source: string;
  destination: string;
  rules: Record<string, unknown>[];
}
export interface TestCase {
  id: string;
  name: string;
  description?: string;
  input: Record<string, unknown>[];
  expectedOutput?: unknown[];
}
export interface TransformationState {
  key: string;
  name: string;
  description: string;
  code: string;
  tests?: TestCase[];
}
export interface LibraryState {
  key: string;
  name: string;
  description: string;
  code: string;
}
export interface PlanState {
  key: string;
  description: string;
  specs: Record<string, unknown>[] | null;
  fromEventModels?: string[];
}
export interface AlertRuleState {
  key: string;
  enabled: boolean;
  condition: Record<string, unknown>;
  channel: Record<string, unknown>;
  secretFields: string[];
}

export interface StateKinds {
  credentials: CredentialState;
  sources: SourceState;
  destinations: DestinationState;
  connections: ConnectionState;
  transformations: TransformationState;
  libraries: LibraryState;
  trackingPlans: PlanState;
  alertRules: AlertRuleState;
}
export type StateKind = keyof StateKinds;
export type State = { [K in StateKind]: StateKinds[K][] };

export const connectionKey = (c: Pick<ConnectionState, 'source' | 'destination'>): string => `${c.source} → ${c.destination}`;
export const keyOf = (kind: StateKind, item: StateKinds[StateKind]): string =>
  kind === 'connections' ? connectionKey(item as ConnectionState) : (item as { key: string }).key;

/** The desired state, with where each item was written (for errors found while applying). */
export interface Desired {
  state: State;
  origins: Map<string, Origin>;
}
export const originKey = (kind: StateKind, key: string): string => `${kind}:${key}`;

/** JSON with keys sorted: two values compare equal when they are, whatever the order of their keys. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
export const same = (a: unknown, b: unknown): boolean => canonicalJson(a) === canonicalJson(b);
