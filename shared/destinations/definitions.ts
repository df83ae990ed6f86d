import * as z from 'zod';
import { ValidationError } from '../domain/errors';
import { problemsOf } from '../domain/validation';
import type { FieldText } from './config-schema';
import { misplacedRef, storedConfigSchema } from './credential-refs';
import { amplitudeDefinition, amplitudeFields } from './amplitude/definition';
import { bigQueryStreamDefinition, bigQueryStreamFields } from './bigquery/definition';
import { brazeDefinition, brazeFields } from './braze/definition';
import { customerioDefinition, customerioFields } from './customerio/definition';
import { facebookConversionsDefinition, facebookConversionsFields } from './facebook-conversions/definition';
import { firehoseDefinition, firehoseFields } from './firehose/definition';
import { ga4Definition, ga4Fields } from './ga4/definition';
import { googleSheetsDefinition, googleSheetsFields } from './google-sheets/definition';
import { heapDefinition, heapFields } from './heap/definition';
import { hubspotDefinition, hubspotFields } from './hubspot/definition';
import { intercomDefinition, intercomFields } from './intercom/definition';
import { iterableDefinition, iterableFields } from './iterable/definition';
import { kafkaDefinition, kafkaFields } from './kafka/definition';
import { klaviyoDefinition, klaviyoFields } from './klaviyo/definition';
import { mixpanelDefinition, mixpanelFields } from './mixpanel/definition';
import { pinterestConversionsDefinition, pinterestConversionsFields } from './pinterest-conversions/definition';
import { postgresDefinition, postgresFields } from './postgres/definition';
import { posthogDefinition, posthogFields } from './posthog/definition';
import { redisDefinition, redisFields } from './redis/definition';
import { s3Definition, s3Fields } from './s3/definition';
import { segmentDefinition, segmentFields } from './segment/definition';
import { slackDefinition, slackFields } from './slack/definition';
import { snapchatConversionsDefinition, snapchatConversionsFields } from './snapchat-conversions/definition';
import { tiktokAdsDefinition, tiktokAdsFields } from './tiktok-ads/definition';
import { webhookDefinition, webhookFields } from './webhook/definition';
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

/**
 * Each type's field texts (display name, description, example), by type name: only listDestinationDefinitions
 * reads them, so a function that only checks configurations bundles none of them (plain references, no calls).
 */
const FIELD_TEXTS: Readonly<Record<string, Readonly<Record<string, FieldText>>>> = {
  WEBHOOK: webhookFields,
  AM: amplitudeFields,
  MP: mixpanelFields,
  POSTHOG: posthogFields,
  BRAZE: brazeFields,
  CUSTOMERIO: customerioFields,
  GA4: ga4Fields,
  SLACK: slackFields,
  FACEBOOK_CONVERSIONS: facebookConversionsFields,
  TIKTOK_ADS: tiktokAdsFields,
  PINTEREST_CONVERSIONS: pinterestConversionsFields,
  SNAPCHAT_CONVERSIONS: snapchatConversionsFields,
  HS: hubspotFields,
  INTERCOM: intercomFields,
  KLAVIYO: klaviyoFields,
  REDIS: redisFields,
  S3: s3Fields,
  POSTGRES: postgresFields,
  KAFKA: kafkaFields,
  GOOGLESHEETS: googleSheetsFields,
  BQSTREAM: bigQueryStreamFields,
  FIREHOSE: firehoseFields,
  ITERABLE: iterableFields,
  SEGMENT: segmentFields,
  HEAP: heapFields,
};

export const DESTINATION_DEFINITIONS: ReadonlyMap<string, DestinationDefinition> = new Map(DEFINITIONS.map((d) => [d.name, d]));

export const destinationDefinition = (name: string): DestinationDefinition | undefined => DESTINATION_DEFINITIONS.get(name);

/** One side of a `pairs` field as a form's column shows it. */
const PairColumn = z.object({ displayName: z.string(), example: z.string().optional() });

/** One configuration variable as a form shows it, derived from the type's zod schema (never re-declared). */
export const DestinationField = z.object({
  name: z.string(),
  displayName: z.string().describe("the vendor's name for it"),
  type: z
    .enum(['string', 'url', 'integer', 'number', 'boolean', 'enum', 'pairs', 'list', 'json'])
    .describe('pairs: a list of {from, to}; list: a list of strings; json: any other list or object'),
  required: z.boolean(),
  description: z.string(),
  example: z.string().optional(),
  columns: z.object({ from: PairColumn, to: PairColumn }).optional().describe("a pairs field's sides"),
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

const columnOf = (side: { label: string; example: string }) => ({ displayName: side.label, example: side.example });

/**
 * A type's configuration variables as forms show them: name, type, whether required, options and secrecy from
 * the zod schema; display name, description, example and a pairs field's columns from the type's field texts
 * (where one is missing, the key and an empty description stand in: test/unit/destination-definitions.test.ts
 * keeps every type complete).
 */
function configFields(config: z.ZodType, texts: Readonly<Record<string, FieldText>> = {}): DestinationField[] {
  const schema = z.toJSONSchema(config, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const type = fieldType(property);
    const text = texts[name];
    return {
      name,
      displayName: text?.label ?? name,
      type,
      required: schema.required?.includes(name) ?? false,
      description: text?.description ?? '',
      ...(text?.example !== undefined && { example: String(text.example) }),
      ...(type === 'pairs' && text?.columns && { columns: { from: columnOf(text.columns.from), to: columnOf(text.columns.to) } }),
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
    fields: configFields(definition.config, FIELD_TEXTS[definition.name]),
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
