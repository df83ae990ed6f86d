import * as z from 'zod';
import { ValidationError } from '../domain/errors';
import { problemsOf } from '../domain/validation';
import { misplacedRef, storedConfigSchema } from './credential-refs';
import { amplitudeDefinition } from './amplitude/definition';
import { bigQueryStreamDefinition } from './bigquery/definition';
import { brazeDefinition } from './braze/definition';
import { customerioDefinition } from './customerio/definition';
import { facebookConversionsDefinition } from './facebook-conversions/definition';
import { firehoseDefinition } from './firehose/definition';
import { ga4Definition } from './ga4/definition';
import { googleSheetsDefinition } from './google-sheets/definition';
import { heapDefinition } from './heap/definition';
import { hubspotDefinition } from './hubspot/definition';
import { intercomDefinition } from './intercom/definition';
import { iterableDefinition } from './iterable/definition';
import { kafkaDefinition } from './kafka/definition';
import { klaviyoDefinition } from './klaviyo/definition';
import { mixpanelDefinition } from './mixpanel/definition';
import { pinterestConversionsDefinition } from './pinterest-conversions/definition';
import { postgresDefinition } from './postgres/definition';
import { posthogDefinition } from './posthog/definition';
import { redisDefinition } from './redis/definition';
import { s3Definition } from './s3/definition';
import { segmentDefinition } from './segment/definition';
import { slackDefinition } from './slack/definition';
import { snapchatConversionsDefinition } from './snapchat-conversions/definition';
import { tiktokAdsDefinition } from './tiktok-ads/definition';
import { webhookDefinition } from './webhook/definition';
import type { DestinationDefinition } from './types';

/**
 * The definitions of every destination type Weir knows (each type's definition.ts: name, configuration schema,
 * what it supports), without their code: the catalog validates configurations with them and
 * GET /destination-definitions lists them. The types' code (transforms, clients) is in registry.ts, which lists
 * the same types in the same order; only what delivers, tests or deletes imports it.
 */
const DEFINITIONS: DestinationDefinition[] = [
  webhookDefinition,
  amplitudeDefinition,
  mixpanelDefinition,
  posthogDefinition,
  brazeDefinition,
  customerioDefinition,
  ga4Definition,
  slackDefinition,
  facebookConversionsDefinition,
  tiktokAdsDefinition,
  pinterestConversionsDefinition,
  snapchatConversionsDefinition,
  hubspotDefinition,
  intercomDefinition,
  klaviyoDefinition,
  redisDefinition,
  s3Definition,
  postgresDefinition,
  kafkaDefinition,
  googleSheetsDefinition,
  bigQueryStreamDefinition,
  firehoseDefinition,
  iterableDefinition,
  segmentDefinition,
  heapDefinition,
];

export const DESTINATION_DEFINITIONS: ReadonlyMap<string, DestinationDefinition> = new Map(DEFINITIONS.map((d) => [d.name, d]));

export const destinationDefinition = (name: string): DestinationDefinition | undefined => DESTINATION_DEFINITIONS.get(name);

/** One side of a `pairs` field as a form's column shows it. */
const PairColumn = z.object({ displayName: z.string(), example: z.string().optional() });

/** One configuration variable as a form shows it, derived from the type's zod schema (never re-declared). */
export const DestinationField = z.object({
  name: z.string(),
  displayName: z.string().describe("the field's name as the vendor's settings or documentation call it"),
  type: z
    .enum(['string', 'url', 'integer', 'number', 'boolean', 'enum', 'pairs', 'list', 'json'])
    .describe('pairs: a list of {from, to}; list: a list of strings; json: any other list or object'),
  required: z.boolean(),
  description: z.string().describe('what the field is, in one line'),
  example: z.string().optional().describe('an example value, as it would be typed'),
  columns: z.object({ from: PairColumn, to: PairColumn }).optional().describe('of a pairs field: what each side of a pair is, with an example'),
  options: z.array(z.string()).optional().describe('the allowed values of an enum'),
  secret: z
    .boolean()
    .optional()
    .describe('a secret (a key, a token, a password): it may be a reference to a workspace credential, {"credential": NAME}, instead of its value'),
});
export type DestinationField = z.infer<typeof DestinationField>;

type JsonSchema = {
  type?: string;
  secret?: boolean;
  format?: string;
  enum?: unknown[];
  title?: string;
  description?: string;
  examples?: unknown[];
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
};

function fieldType(schema: JsonSchema): DestinationField['type'] {
  if (schema.enum) return 'enum';
  if (schema.type === 'string') return schema.format === 'uri' ? 'url' : 'string';
  if (schema.type === 'integer' || schema.type === 'number' || schema.type === 'boolean') return schema.type;
  if (schema.type === 'array' && schema.items?.type === 'string' && !schema.items.enum) return 'list';
  const keys = Object.keys(schema.items?.properties ?? {})
    .sort()
    .join(',');
  return schema.type === 'array' && keys === 'from,to' ? 'pairs' : 'json';
}

/** A schema's first example as text (JSON for anything but a string or a number). */
const exampleOf = (schema: JsonSchema | undefined): { example?: string } => {
  const example = schema?.examples?.[0];
  if (example === undefined) return {};
  return { example: typeof example === 'string' || typeof example === 'number' ? String(example) : JSON.stringify(example) };
};

const columnOf = (schema: JsonSchema | undefined, side: 'from' | 'to') => ({ displayName: schema?.title ?? side, ...exampleOf(schema) });

/**
 * A type's configuration variables as forms show them: the display name, description and example are the
 * schema's `title`, `description` and `examples` (config-schema.ts `field`); where one is missing, the key and
 * an empty description stand in (test/unit/destination-definitions.test.ts keeps every type complete).
 */
export function configFields(config: z.ZodType): DestinationField[] {
  const schema = z.toJSONSchema(config, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = fieldType(property);
    const sides = property.items?.properties;
    return {
      name,
      displayName: property.title ?? name,
      type,
      required: schema.required?.includes(name) ?? false,
      description: property.description ?? '',
      ...exampleOf(property),
      ...(type === 'pairs' && { columns: { from: columnOf(sides?.from, 'from'), to: columnOf(sides?.to, 'to') } }),
      ...(property.enum && { options: property.enum.map(String) }),
      ...(property.secret === true && { secret: true }),
    };
  });
}

export const DestinationDefinitionView = z.object({
  name: z.string(),
  displayName: z.string(),
  defaultConfig: z.array(z.string()).describe('configuration variable names, usable in destinationConfig'),
  fields: z.array(DestinationField).describe('the same variables with their types, whether required, and what they mean'),
  supportsTest: z.boolean().describe('the test interface can transform and send to it'),
  supportsDeletion: z.boolean().describe('suppress_with_delete regulations can delete users there'),
});

export const listDestinationDefinitions = (): z.infer<typeof DestinationDefinitionView>[] =>
  DEFINITIONS.map((definition) => ({
    name: definition.name,
    displayName: definition.displayName,
    defaultConfig: Object.keys(definition.config.shape),
    fields: configFields(definition.config),
    supportsTest: definition.supportsTest,
    supportsDeletion: definition.supportsDeletion,
  }));

/** A configuration checked against its type: the parsed config, or its first problem. */
export type ConfigCheck = { ok: true; config: Record<string, unknown> } | { ok: false; field: string; message: string; unknownKeys?: string[] };

/**
 * Checks a configuration as it is stored against a type's schema (a definition, or the type built from it): a
 * secret field holds its value or a reference to a workspace credential (credential-refs.ts), no other field
 * holds a reference.
 */
export function checkDestinationConfig(type: Pick<DestinationDefinition, 'config'>, config: Record<string, unknown>): ConfigCheck {
  const misplaced = misplacedRef(type, config);
  if (misplaced) return { ok: false, ...misplaced };
  const result = storedConfigSchema(type).safeParse(config);
  if (result.success) return { ok: true, config: result.data as Record<string, unknown> };
  const [problem] = problemsOf(result.error);
  return {
    ok: false,
    field: (problem?.path ?? []).join('.'),
    message: problem?.message ?? 'invalid',
    ...(problem?.unknownKeys && { unknownKeys: problem.unknownKeys }),
  };
}

/**
 * Checks a configuration against its type; the error names the offending field under `field` (`config`
 * in the catalog, `destinationConfig` in the test interface).
 */
export function validateDestinationConfig(typeName: string, config: Record<string, unknown>, field = 'config'): Record<string, unknown> {
  const definition = destinationDefinition(typeName);
  if (!definition) {
    throw new ValidationError(`type: unknown destination type ${typeName}; known types: ${[...DESTINATION_DEFINITIONS.keys()].join(', ')}`);
  }
  const checked = checkDestinationConfig(definition, config);
  if (checked.ok) return checked.config;
  const path = [field, ...(checked.field ? [checked.field] : [])].join('.');
  throw new ValidationError(`${path}: ${checked.message}${checked.unknownKeys ? `: unknown ${checked.unknownKeys.join(', ')}` : ''}`);
}
