import Ajv2020 from 'ajv/dist/2020';
import { existsSync, readFileSync } from 'node:fs';
import { AlertChannel, AlertCondition } from '../shared/domain/alerts/schemas';
import { DEFAULT_DEDUPLICATION_WINDOW_HOURS } from '../shared/domain/ingestion/duplicates';
import { DEFAULT_INGEST_SHARDS } from '../shared/domain/ingestion/shards';
import { Rules } from '../shared/domain/rules/schemas';
import { EventSpec } from '../shared/domain/tracking-plans/schemas';
import { userRegexProblem } from '../shared/domain/user-regex';
import { misplacedRef, storedConfigSchema } from '../shared/destinations/credential-refs';
import { destinationDefinition, DESTINATION_DEFINITIONS } from '../shared/destinations/definitions';
import { destinationSecrets, isCredentialRef, isEnvRef, resolveEnv } from './secrets';
import { besideSpec, loadSpec, type LoadedSpec } from './spec/load';
import type { Problems } from './spec/problems';
import type { Item, Origin, Path, SpecItems } from './spec/types';
import { connectionKey, originKey, type Desired, type State, type StateKind, type TestCase } from './state';

/**
 * Weir's own rules over a spec that passed its JSON Schema, and the desired state it describes: keys unique,
 * references to keys that exist, a destination's config against its type's definition, a rule's fields, a
 * tracking plan's JSON Schemas, code and test files present, a destination's secrets named credentials the spec
 * declares. Offline, a `{ env: NAME }` the environment lacks is left unchecked; for plan and apply it must be set.
 */
export interface CheckOptions {
  offline: boolean;
  env: NodeJS.ProcessEnv;
}

type Issue = { path: PropertyKey[]; message: string };
const issuesOf = (error: { issues: readonly Issue[] }) =>
  error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === 'symbol' ? String(p) : p)), message: i.message }));

function uniqueKeys<T>(items: Item<T>[], keyOf: (spec: T) => string, what: string, problems: Problems, at: Path): Set<string> {
  const seen = new Map<string, Origin>();
  for (const item of items) {
    const key = keyOf(item.spec);
    const first = seen.get(key);
    if (first) problems.add(item.origin, at, `${what} ${key} is also defined at ${first.file} (${[...first.path].join('.')})`);
    else seen.set(key, item.origin);
  }
  return new Set(seen.keys());
}

function readCode(origin: Origin, file: string, field: string, problems: Problems): string {
  const full = besideSpec(origin.file, file);
  if (!existsSync(full)) {
    problems.add(origin, [field], `no such file ${full}`);
    return '';
  }
  return readFileSync(full, 'utf8');
}

function readTests(origin: Origin, file: string, problems: Problems): TestCase[] | undefined {
  const text = readCode(origin, file, 'tests', problems);
  if (!text) return undefined;
  try {
    const tests = JSON.parse(text) as unknown;
    if (Array.isArray(tests) && tests.every((t) => t && typeof t === 'object' && Array.isArray((t as TestCase).input))) {
      return tests.map((t: TestCase, i) => ({ ...t, id: t.id ?? String(i + 1), name: t.name ?? `test ${i + 1}` }));
    }
    problems.add(origin, ['tests'], 'must be a JSON list of tests, each {name, input: [events], expectedOutput?: [events]}');
  } catch (error) {
    problems.add(origin, ['tests'], `not JSON: ${(error as Error).message}`);
  }
  return undefined;
}

/** The declared credentials, each with its value from the environment (for plan and apply: it must be set). */
function credentials(items: SpecItems['credentials'], problems: Problems, options: CheckOptions): State['credentials'] {
  return items.map(({ spec, origin }) => {
    const resolved = resolveEnv(spec.value, options.env, options.offline);
    if (resolved.missing) problems.add(origin, ['value'], `the environment variable ${resolved.missing} is not set`);
    const value = typeof resolved.value === 'string' ? { value: resolved.value } : {};
    return { key: spec.key, isSecret: spec.secret ?? true, ...value, env: spec.value.env };
  });
}

/**
 * A destination's config: each secret field names a declared credential, `{ credential: NAME }` (a value, or a
 * `{ env: NAME }`, is refused: the value belongs to the credential), as do `…Credential` fields by key; then the
 * whole against the type's definition, which takes the references as the API does.
 */
function destinations(
  items: SpecItems['destinations'],
  transformations: Set<string>,
  declared: Set<string>,
  problems: Problems,
  options: CheckOptions,
): State['destinations'] {
  return items.map(({ spec, origin }) => {
    const definition = destinationDefinition(spec.type);
    if (!definition) problems.add(origin, ['type'], `unknown destination type ${spec.type}; known types: ${[...DESTINATION_DEFINITIONS.keys()].join(', ')}`);
    if (spec.transformation !== undefined && !transformations.has(spec.transformation)) {
      problems.add(origin, ['transformation'], `no transformation has the key ${spec.transformation}`);
    }
    const secrets = destinationSecrets(spec.type);
    const config: Record<string, unknown> = {};
    const refused = new Set<string>();
    for (const [field, value] of Object.entries(spec.config ?? {})) {
      const named = isCredentialRef(value) ? value.credential : /Credential$/.test(field) && typeof value === 'string' ? value : undefined;
      if (named !== undefined && !declared.has(named))
        problems.add(origin, ['config', field], `no credential has the key ${named}: declare it under credentials`);
      if (secrets.includes(field) && !isCredentialRef(value)) {
        const how = isEnvRef(value)
          ? `declare a credential with value { env: ${value.env} } and name it here`
          : 'declare a credential and name it here, never the value';
        problems.add(origin, ['config', field], `is a secret: write { credential: NAME } (${how})`);
        refused.add(field);
        continue;
      }
      // Any other field may differ by stage: { env: NAME } is its value from the environment.
      const resolved = resolveEnv(value, options.env, false);
      if (resolved.missing) {
        if (!options.offline) problems.add(origin, ['config', field], `the environment variable ${resolved.missing} is not set`);
        refused.add(field);
      } else config[field] = resolved.value;
    }
    let parsed = config;
    if (definition) {
      const misplaced = misplacedRef(definition, config);
      if (misplaced) problems.add(origin, ['config', misplaced.field], misplaced.message);
      const result = storedConfigSchema(definition).safeParse(config);
      if (result.success) parsed = result.data as Record<string, unknown>;
      else
        for (const i of issuesOf(result.error))
          if (!refused.has(String(i.path[0])) && String(i.path[0]) !== misplaced?.field) problems.add(origin, ['config', ...i.path], i.message);
    }
    return {
      key: spec.key,
      type: spec.type,
      enabled: spec.enabled ?? true,
      config: parsed,
      secretFields: secrets,
      transformation: spec.transformation ?? null,
    };
  });
}

function connections(
  items: SpecItems['connections'],
  sources: Set<string>,
  dests: Set<string>,
  declared: Set<string>,
  problems: Problems,
): State['connections'] {
  uniqueKeys(items, connectionKey, 'the connection', problems, []);
  return items.map(({ spec, origin }) => {
    if (!sources.has(spec.source)) problems.add(origin, ['source'], `no source has the key ${spec.source}`);
    if (!dests.has(spec.destination)) problems.add(origin, ['destination'], `no destination has the key ${spec.destination}`);
    const result = Rules.safeParse(spec.rules ?? []);
    if (!result.success) {
      for (const i of issuesOf(result.error)) problems.add(origin, ['rules', ...i.path], i.message);
      return { source: spec.source, destination: spec.destination, rules: [] };
    }
    result.data.forEach((rule, r) => {
      if (rule.type === 'hash' && rule.saltCredential !== undefined && !declared.has(rule.saltCredential))
        problems.add(origin, ['rules', r, 'saltCredential'], `no credential has the key ${rule.saltCredential}: declare it under credentials`);
      if (rule.type !== 'drop-if') return;
      rule.conditions.forEach((c, k) => {
        const problem = c.op === 'matches' ? userRegexProblem(c.pattern, { ignoreCase: c.ignoreCase }) : undefined;
        if (problem) problems.add(origin, ['rules', r, 'conditions', k, 'pattern'], problem);
      });
    });
    return { source: spec.source, destination: spec.destination, rules: result.data as Record<string, unknown>[] };
  });
}

function trackingPlans(items: SpecItems['trackingPlans'], problems: Problems): State['trackingPlans'] {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  return items.map(({ spec, origin }) => {
    const specs = spec.specs?.map((eventSpec, s) => {
      const result = EventSpec.safeParse(eventSpec);
      if (!result.success) {
        for (const i of issuesOf(result.error)) problems.add(origin, ['specs', s, ...i.path], i.message);
        return eventSpec;
      }
      try {
        ajv.compile(result.data.schema);
      } catch (error) {
        problems.add(origin, ['specs', s, 'schema'], `not a valid JSON Schema (draft 2020-12): ${(error as Error).message}`);
      }
      return result.data as Record<string, unknown>;
    });
    return { key: spec.key, description: spec.description ?? '', specs: specs ?? null, ...(spec.fromEventModels && { fromEventModels: spec.fromEventModels }) };
  });
}

const PLACEHOLDER_ID = 'placeholder';

function alertRules(items: SpecItems['alertRules'], sources: Set<string>, dests: Set<string>, problems: Problems, options: CheckOptions): State['alertRules'] {
  return items.map(({ spec, origin }) => {
    const { source, destination, ...rest } = spec.condition;
    const wantsSource = spec.condition.kind === 'source-silent';
    const ref = wantsSource ? source : destination;
    const field = wantsSource ? 'source' : 'destination';
    if (ref === undefined) problems.add(origin, ['condition', field], `is required for ${spec.condition.kind}`);
    else if (!(wantsSource ? sources : dests).has(ref)) problems.add(origin, ['condition', field], `no ${field} has the key ${ref}`);
    if ((wantsSource ? destination : source) !== undefined)
      problems.add(origin, ['condition', wantsSource ? 'destination' : 'source'], `is not a field of ${spec.condition.kind}`);
    const condition = AlertCondition.safeParse({ ...rest, [`${field}Id`]: PLACEHOLDER_ID });
    let parsedCondition: Record<string, unknown> = { ...rest };
    if (condition.success) {
      const { sourceId: _s, destinationId: _d, ...others } = condition.data as Record<string, unknown>;
      parsedCondition = others;
    } else for (const i of issuesOf(condition.error)) problems.add(origin, ['condition', ...i.path], i.message);
    const channel: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(spec.channel)) {
      const resolved = resolveEnv(value, options.env, false);
      if (resolved.missing && !options.offline) problems.add(origin, ['channel', key], `the environment variable ${resolved.missing} is not set`);
      channel[key] = resolved.missing ? 'https://hooks.slack.com/services/unset' : resolved.value;
    }
    const parsedChannel = AlertChannel.safeParse(channel);
    if (!parsedChannel.success) for (const i of issuesOf(parsedChannel.error)) problems.add(origin, ['channel', ...i.path], i.message);
    return {
      key: spec.key,
      enabled: spec.enabled ?? true,
      condition: { ...parsedCondition, [field]: ref ?? '' },
      channel: parsedChannel.success ? parsedChannel.data : channel,
      secretFields: spec.channel.type === 'slack' ? ['webhookUrl'] : [],
    };
  });
}

/** The desired state of a loaded spec, with every problem found on the way. */
export function desiredState(loaded: LoadedSpec, options: CheckOptions): Desired {
  const { items, problems } = loaded;
  const keyed = (kind: Exclude<StateKind, 'connections'>, what: string) =>
    uniqueKeys(items[kind] as Item<{ key: string }>[], (s) => s.key, what, problems, ['key']);
  const sourceKeys = keyed('sources', 'the source');
  const destinationKeys = keyed('destinations', 'the destination');
  const transformationKeys = keyed('transformations', 'the transformation');
  keyed('libraries', 'the library');
  const planKeys = keyed('trackingPlans', 'the tracking plan');
  keyed('alertRules', 'the alert rule');
  const credentialKeys = keyed('credentials', 'the credential');
  const state: State = {
    credentials: credentials(items.credentials, problems, options),
    sources: items.sources.map(({ spec, origin }) => {
      if (spec.trackingPlan && !planKeys.has(spec.trackingPlan.plan))
        problems.add(origin, ['trackingPlan', 'plan'], `no tracking plan has the key ${spec.trackingPlan.plan}`);
      return {
        key: spec.key,
        type: spec.type ?? 'HTTP',
        enabled: spec.enabled ?? true,
        inboundLimit: spec.inboundLimit ?? null,
        ingestShards: spec.ingestShards ?? DEFAULT_INGEST_SHARDS,
        deduplicationWindowHours: spec.deduplicationWindowHours ?? DEFAULT_DEDUPLICATION_WINDOW_HOURS,
        trackingPlan: spec.trackingPlan
          ? {
              plan: spec.trackingPlan.plan,
              mode: spec.trackingPlan.mode ?? 'observe',
              unplannedEvents: spec.trackingPlan.unplannedEvents ?? 'allow',
              ...(spec.trackingPlan.version !== undefined && { version: spec.trackingPlan.version }),
            }
          : null,
      };
    }),
    destinations: destinations(items.destinations, transformationKeys, credentialKeys, problems, options),
    connections: connections(items.connections, sourceKeys, destinationKeys, credentialKeys, problems),
    transformations: items.transformations.map(({ spec, origin }) => ({
      key: spec.key,
      name: spec.name ?? spec.key,
      description: spec.description ?? '',
      code: readCode(origin, spec.code, 'code', problems),
      ...(spec.tests !== undefined && { tests: readTests(origin, spec.tests, problems) }),
    })),
    libraries: items.libraries.map(({ spec, origin }) => ({
      key: spec.key,
      name: spec.name ?? spec.key,
      description: spec.description ?? '',
      code: readCode(origin, spec.code, 'code', problems),
    })),
    trackingPlans: trackingPlans(items.trackingPlans, problems),
    alertRules: alertRules(items.alertRules, sourceKeys, destinationKeys, problems, options),
  };
  const origins = new Map<string, Origin>();
  for (const [kind, list] of Object.entries(items)) {
    for (const item of list as Item<{ key?: string; source?: string; destination?: string }>[]) {
      const key = kind === 'connections' ? connectionKey(item.spec as { source: string; destination: string }) : item.spec.key!;
      origins.set(originKey(kind as StateKind, key), item.origin);
    }
  }
  return { state, origins };
}

/** `weir validate`, and the first step of plan and apply: the spec's problems, or its desired state. */
export function checkSpec(dir: string, options: CheckOptions): { loaded: LoadedSpec; desired?: Desired } {
  const loaded = loadSpec(dir);
  if (loaded.problems.any) return { loaded };
  const desired = desiredState(loaded, options);
  return loaded.problems.any ? { loaded } : { loaded, desired };
}
