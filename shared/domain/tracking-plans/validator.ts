import type { default as Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020';
import type { RegExpEngine } from 'ajv/dist/types';
import { ValidationError } from '../errors';
import { compileUserRegex, MatchMeter, userRegexProblem } from '../user-regex';
import { NAMED_TYPES, type EventSpec, type PlanEventType, type Violation, type ViolationType } from './schemas';
import { isRecord } from '../../destinations/message';

/**
 * A plan version compiled once (Ajv, draft 2020-12) and kept by the process: each spec's validator, and in
 * `omit-unplanned` mode a second one that removes the keys its schema does not list.
 */

/** The key of a spec, and of an event looked up among them: `track:Order Completed`, `page:Home`, `identify`. */
export const specKey = (type: string, name?: string): string => (name === undefined ? type : `${type}:${name}`);

/** The Ajv class (draft 2020-12): loaded on first use, so a process whose sources have no plan never loads it. */
export type AjvClass = typeof Ajv2020;
export const loadAjv = async (): Promise<AjvClass> => {
  // A CommonJS package: its namespace's default is module.exports, which is the class and has it as `default`.
  const loaded = (await import('ajv/dist/2020.js')).default;
  return loaded.default ?? (loaded as unknown as AjvClass);
};

/**
 * Ajv's regular expressions (`pattern`, `patternProperties`, `propertyNames`) compiled by RE2, never by V8's
 * backtracking engine, matching within one event's work (`meter`, the plan version's). A text a pattern does not
 * check passes it as far as Ajv knows (no error, a `patternProperties` name stays planned) and is reported from
 * the meter (check).
 */
const regExpOf = (meter: MatchMeter): RegExpEngine => Object.assign((pattern: string) => compileUserRegex(pattern, { meter }), { code: 'compileUserRegex' });

const newAjv = (Ajv: AjvClass, removeAdditional: boolean, meter: MatchMeter) =>
  new Ajv({
    strict: false,
    allErrors: true,
    allowUnionTypes: true,
    removeAdditional: removeAdditional ? 'all' : false,
    // No format is checked (some take a regex), and a schema cannot name a pattern from the data ($data is off).
    validateFormats: false,
    code: { regExp: regExpOf(meter) },
  });

/** Keywords whose value is a map of names to schemas (the names are not keywords). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas']);
/** Keywords whose value is data, not a schema. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples']);

/** Every regular expression of a JSON Schema (`pattern` values, `patternProperties` names), with where it is. */
function* patternsOf(schema: unknown, at: string): Generator<{ at: string; pattern: string }> {
  if (Array.isArray(schema)) {
    for (const [i, item] of schema.entries()) yield* patternsOf(item, `${at}[${i}]`);
    return;
  }
  if (!isRecord(schema)) return;
  for (const [key, value] of Object.entries(schema)) {
    const here = `${at}.${key}`;
    if (key === 'pattern' && typeof value === 'string') yield { at: here, pattern: value };
    else if (SCHEMA_MAPS.has(key) && isRecord(value)) {
      for (const [name, sub] of Object.entries(value)) {
        const named = key === 'patternProperties' ? `${here}[${JSON.stringify(name)}]` : `${here}.${name}`;
        if (key === 'patternProperties') yield { at: named, pattern: name };
        yield* patternsOf(sub, named);
      }
    } else if (!DATA_KEYWORDS.has(key)) yield* patternsOf(value, here);
  }
}

/** A spec's schema compiled, its patterns first (a refused one named with its place in the body). */
function compileSpec(ajv: Ajv2020, schema: EventSpec['schema'], i: number): ValidateFunction {
  for (const { at, pattern } of patternsOf(schema, `body.specs[${i}].schema`)) {
    const problem = userRegexProblem(pattern);
    if (problem) throw new ValidationError(`${at}: ${problem}`);
  }
  try {
    return ajv.compile(schema);
  } catch (error) {
    throw new ValidationError(`body.specs[${i}].schema: not a valid JSON Schema: ${(error as Error).message}`);
  }
}

const VIOLATION_OF_KEYWORD: Record<string, ViolationType> = {
  required: 'Required-Missing',
  type: 'Datatype-Mismatch',
  additionalProperties: 'Additional-Properties',
  unevaluatedProperties: 'Additional-Properties',
};

/** What an event's spec validates: its `properties`, or for identify and group its `traits` (else `context.traits`). */
export function targetOf(event: Record<string, unknown>, type: PlanEventType): { path: string; value: unknown; set: (v: unknown) => void } {
  if (type === 'identify' || type === 'group') {
    const context = event.context;
    if (event.traits === undefined && isRecord(context) && context.traits !== undefined) {
      return { path: '/context/traits', value: context.traits, set: (v) => (event.context = { ...context, traits: v }) };
    }
    return { path: '/traits', value: event.traits, set: (v) => (event.traits = v) };
  }
  return { path: '/properties', value: event.properties, set: (v) => (event.properties = v) };
}

/** An Ajv error as a violation of RudderStack's shape: its type, Ajv's message, where in the event and in the plan. */
function violationOf(error: ErrorObject, root: string): Violation {
  const type = VIOLATION_OF_KEYWORD[error.keyword] ?? 'Unknown-Violation';
  const schemaRoot = `#${root.replace(/\/([^/]+)/g, '/properties/$1')}`;
  const meta: Record<string, unknown> = {
    instancePath: `${root}${error.instancePath}`,
    schemaPath: `${schemaRoot}${error.schemaPath.slice(1)}`,
  };
  if (error.keyword === 'required') meta.missingProperty = (error.params as { missingProperty: string }).missingProperty;
  if (error.keyword === 'additionalProperties') meta.additionalProperty = (error.params as { additionalProperty: string }).additionalProperty;
  const message = error.keyword === 'additionalProperties' ? `${error.message} (${String(meta.additionalProperty)})` : (error.message ?? error.keyword);
  return { type, message, meta };
}

/** The JSON Pointer of the first place in `node` holding `text`, as a string or as a property name. */
function pointerTo(node: unknown, text: string, at: string): string | undefined {
  if (node === text) return at;
  if (node && typeof node === 'object')
    for (const [key, child] of Object.entries(node)) {
      const here = `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      const found = key === text ? here : pointerTo(child, text, here);
      if (found !== undefined) return found;
    }
  return undefined;
}

interface CompiledSpec {
  spec: EventSpec;
  /** Its place in the version's specs (versions never change): what its counters are named by. */
  index: number;
  validate: ValidateFunction;
  omit?: ValidateFunction;
}

export interface Verdict {
  /** The spec the event met, undefined when the plan has none for it (an unplanned event). */
  spec?: EventSpec;
  index?: number;
  violations: Violation[];
}

export class CompiledPlan {
  private readonly specs = new Map<string, CompiledSpec>();
  private remover?: Ajv2020;
  /** The matching work of the event being checked (check, then omitUnplanned), its patterns' texts not checked. */
  private readonly meter = new MatchMeter();

  constructor(
    private readonly Ajv: AjvClass,
    readonly planId: string,
    readonly version: number,
    specs: EventSpec[],
  ) {
    const ajv = newAjv(Ajv, false, this.meter);
    specs.forEach((spec, i) => {
      const key = specKey(spec.type, spec.name);
      if (this.specs.has(key)) throw new ValidationError(`body.specs[${i}]: ${key} is planned twice`);
      this.specs.set(key, { spec, index: i, validate: compileSpec(ajv, spec.schema, i) });
    });
  }

  /** The spec of an event: by type and name, else (page, screen) by type alone. Alias events are never planned. */
  specOf(event: Record<string, unknown>): CompiledSpec | undefined {
    const type = event.type as string;
    if (!NAMED_TYPES.includes(type as PlanEventType)) return this.specs.get(type);
    const name = type === 'track' ? event.event : event.name;
    return (typeof name === 'string' && this.specs.get(specKey(type, name))) || (type === 'track' ? undefined : this.specs.get(type));
  }

  /** Validates one event against its spec (the event is not changed). */
  check(event: Record<string, unknown>): Verdict {
    const compiled = this.specOf(event);
    if (!compiled) {
      const name = typeof event.event === 'string' ? event.event : typeof event.name === 'string' ? event.name : undefined;
      const what = `${String(event.type)} event${name === undefined ? '' : ` ${JSON.stringify(name)}`}`;
      return { violations: [{ type: 'Unplanned-Event', message: `${what} is not in the tracking plan`, meta: {} }] };
    }
    const target = targetOf(event, compiled.spec.type);
    const value = target.value === undefined ? {} : target.value;
    this.meter.start();
    const valid = compiled.validate(value);
    const { unchecked } = this.meter;
    if (valid && !unchecked) return { spec: compiled.spec, index: compiled.index, violations: [] };
    const violations = (valid ? [] : (compiled.validate.errors ?? [])).map((e) => violationOf(e, target.path));
    // A text a pattern did not check (longer than it reads, or past the event's matching) makes the event a
    // violation, never a pass nor a verdict on part of the text: the first such text, where it is.
    if (unchecked)
      violations.push({ type: 'Unknown-Violation', message: unchecked.problem, meta: { instancePath: pointerTo(value, unchecked.text, target.path) } });
    return { spec: compiled.spec, index: compiled.index, violations };
  }

  /**
   * Removes from the event the keys its spec does not plan (nested ones where the schema lists `properties`).
   * Called after check on the same event, whose matching work it goes on with: a name a `patternProperties`
   * pattern cannot check (its work used up) stays, rather than lose a key that may be planned.
   */
  omitUnplanned(event: Record<string, unknown>): void {
    const compiled = this.specOf(event);
    const target = compiled && targetOf(event, compiled.spec.type);
    if (!compiled || !target || !isRecord(target.value)) return;
    this.remover ??= newAjv(this.Ajv, true, this.meter);
    compiled.omit ??= this.remover.compile(compiled.spec.schema);
    const copy = structuredClone(target.value);
    compiled.omit(copy);
    target.set(copy);
  }
}

/** Compiled plan versions, kept by the process (a version never changes, so nothing goes stale). */
export class CompiledPlans {
  private readonly cache = new Map<string, CompiledPlan>();

  constructor(private readonly max = 100) {}

  of(Ajv: AjvClass, planId: string, version: number, specs: () => EventSpec[]): CompiledPlan {
    const key = `${planId}#${version}`;
    let plan = this.cache.get(key);
    if (!plan) {
      if (this.cache.size >= this.max) this.cache.delete(this.cache.keys().next().value!);
      plan = new CompiledPlan(Ajv, planId, version, specs());
      this.cache.set(key, plan);
    }
    return plan;
  }
}
