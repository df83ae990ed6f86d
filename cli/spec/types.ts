/** A workspace spec as the YAML files write it (docs/reference/workspace-spec.schema.json). */
export type EnvRef = { env: string };
export type Path = (string | number)[];
/** A destination's secret: the key of a credential the spec declares. */
export type CredentialRef = { credential: string };

export interface CredentialSpec {
  key: string;
  value: EnvRef;
  secret?: boolean;
}
export interface SourceSpec {
  key: string;
  type?: string;
  enabled?: boolean;
  inboundLimit?: number | null;
  ingestShards?: number;
  deduplicationWindowHours?: number;
  trackingPlan?: { plan: string; mode?: string; unplannedEvents?: string; version?: number };
}
export interface DestinationSpec {
  key: string;
  type: string;
  enabled?: boolean;
  config?: Record<string, unknown>;
  transformation?: string;
}
export interface ConnectionSpec {
  source: string;
  destination: string;
  rules?: Record<string, unknown>[];
}
export interface TransformationSpec {
  key: string;
  name?: string;
  description?: string;
  code: string;
  tests?: string;
}
export interface LibrarySpec {
  key: string;
  name?: string;
  description?: string;
  code: string;
}
export interface TrackingPlanSpec {
  key: string;
  description?: string;
  specs?: Record<string, unknown>[];
  fromEventModels?: string[];
}
export interface AlertRuleSpec {
  key: string;
  enabled?: boolean;
  condition: Record<string, unknown> & { kind: string; source?: string; destination?: string };
  channel: Record<string, unknown> & { type: string };
}

export interface SpecKinds {
  credentials: CredentialSpec;
  sources: SourceSpec;
  destinations: DestinationSpec;
  connections: ConnectionSpec;
  transformations: TransformationSpec;
  libraries: LibrarySpec;
  trackingPlans: TrackingPlanSpec;
  alertRules: AlertRuleSpec;
}
export type Kind = keyof SpecKinds;
export const KINDS: Kind[] = ['credentials', 'sources', 'destinations', 'connections', 'transformations', 'libraries', 'trackingPlans', 'alertRules'];

/** Where an item was written: its file and its path in that file (`['sources', 0]`). */
export interface Origin {
  file: string;
  path: Path;
}
export interface Item<T> {
  spec: T;
  origin: Origin;
}
export type SpecItems = { [K in Kind]: Item<SpecKinds[K]>[] };
