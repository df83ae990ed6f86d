import * as z from 'zod';
import { ValidationError } from '../domain/errors';
import { problemsOf } from '../domain/validation';
import { amplitude } from './amplitude';
import { bigQueryStream } from './bigquery';
import { braze } from './braze';
import { customerio } from './customerio';
import { firehose } from './firehose';
import { facebookConversions } from './facebook-conversions';
import { ga4 } from './ga4';
import { heap } from './heap';
import { hubspot } from './hubspot';
import { intercom } from './intercom';
import { iterable } from './iterable';
import { klaviyo } from './klaviyo';
import { googleSheets } from './google-sheets';
import { kafka } from './kafka';
import { mixpanel } from './mixpanel';
import { pinterestConversions } from './pinterest-conversions';
import { postgres } from './postgres';
import { posthog } from './posthog';
import { redis } from './redis';
import { segment } from './segment';
import { slack } from './slack';
import { s3 } from './s3';
import { snapchatConversions } from './snapchat-conversions';
import { tiktokAds } from './tiktok-ads';
import type { DestinationType } from './types';
import { webhook } from './webhook';

/**
 * The destination-type registry: every type Weir knows. The catalog validates configurations with it,
 * GET /destination-definitions lists it, the test interface, delivery and deletion find their code in it.
 */
const TYPES: DestinationType[] = [
  webhook,
  amplitude,
  mixpanel,
  posthog,
  braze,
  customerio,
  ga4,
  slack,
  facebookConversions,
  tiktokAds,
  pinterestConversions,
  snapchatConversions,
  hubspot,
  intercom,
  klaviyo,
  redis,
  s3,
  postgres,
  kafka,
  googleSheets,
  bigQueryStream,
  firehose,
  iterable,
  segment,
  heap,
];

export const DESTINATION_TYPES: ReadonlyMap<string, DestinationType> = new Map(TYPES.map((t) => [t.name, t]));

export const destinationType = (name: string): DestinationType | undefined => DESTINATION_TYPES.get(name);

export const supportsTest = (type: DestinationType) =>
  type.delivery === 'http' ? type.transform !== undefined : type.preview !== undefined && type.serverBatch !== undefined;
export const supportsDeletion = (type: DestinationType) => type.deleteUsers !== undefined;

/** One configuration variable as a form shows it, derived from the type's zod schema (never re-declared). */
export const DestinationField = z.object({
  name: z.string(),
  type: z
    .enum(['string', 'url', 'integer', 'number', 'boolean', 'enum', 'pairs', 'json'])
    .describe('pairs: a list of {from, to}; json: any other list or object'),
  required: z.boolean(),
  description: z.string().optional(),
  options: z.array(z.string()).optional().describe('the allowed values of an enum'),
});
export type DestinationField = z.infer<typeof DestinationField>;

type JsonSchema = {
  type?: string;
  format?: string;
  enum?: unknown[];
  description?: string;
  items?: JsonSchema;
  properties?: Record<string, JsonSchema>;
};

function fieldType(schema: JsonSchema): DestinationField['type'] {
  if (schema.enum) return 'enum';
  if (schema.type === 'string') return schema.format === 'uri' ? 'url' : 'string';
  if (schema.type === 'integer' || schema.type === 'number' || schema.type === 'boolean') return schema.type;
  const keys = Object.keys(schema.items?.properties ?? {})
    .sort()
    .join(',');
  return schema.type === 'array' && keys === 'from,to' ? 'pairs' : 'json';
}

export function configFields(config: z.ZodType): DestinationField[] {
  const schema = z.toJSONSchema(config, { io: 'input', unrepresentable: 'any' }) as JsonSchema & { required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    type: fieldType(property),
    required: schema.required?.includes(name) ?? false,
    ...(property.description && { description: property.description }),
    ...(property.enum && { options: property.enum.map(String) }),
  }));
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
  [...DESTINATION_TYPES.values()].map((type) => ({
    name: type.name,
    displayName: type.displayName,
    defaultConfig: Object.keys(type.config.shape),
    fields: configFields(type.config),
    supportsTest: supportsTest(type),
    supportsDeletion: supportsDeletion(type),
  }));

/** A configuration checked against its type: the parsed config, or its first problem. */
export type ConfigCheck = { ok: true; config: Record<string, unknown> } | { ok: false; field: string; message: string; unknownKeys?: string[] };

export function checkDestinationConfig(type: DestinationType, config: Record<string, unknown>): ConfigCheck {
  const result = type.config.safeParse(config);
  if (result.success) return { ok: true, config: result.data as Record<string, unknown> };
  const [problem] = problemsOf(result.error);
  return {
    ok: false,
    field: (problem?.path ?? []).join('.'),
    message: problem?.message ?? 'invalid',
    ...(problem?.unknownKeys && { unknownKeys: problem.unknownKeys }),
  };
}

/** The text a configuration that cannot build a request shows in a destination-transform result. */
export function invalidConfigText(type: DestinationType, problem: { field: string; message: string }): string {
  return type.invalidConfigText?.(problem.field) ?? `Invalid ${type.displayName} config: ${problem.field}: ${problem.message}`;
}

/**
 * Checks a configuration against its type; the error names the offending field under `field` (`config`
 * in the catalog, `destinationConfig` in the test interface).
 */
export function validateDestinationConfig(typeName: string, config: Record<string, unknown>, field = 'config'): Record<string, unknown> {
  const type = destinationType(typeName);
  if (!type) {
    throw new ValidationError(`type: unknown destination type ${typeName}; known types: ${[...DESTINATION_TYPES.keys()].join(', ')}`);
  }
  const checked = checkDestinationConfig(type, config);
  if (checked.ok) return checked.config;
  const path = [field, ...(checked.field ? [checked.field] : [])].join('.');
  throw new ValidationError(`${path}: ${checked.message}${checked.unknownKeys ? `: unknown ${checked.unknownKeys.join(', ')}` : ''}`);
}
