import * as z from 'zod';
import { isCredentialRef } from '../domain/credentials/schemas';
import { problemsOf } from '../domain/validation';
import { CredentialRef } from './config-schema';
import type { DestinationDefinition } from './types';

/**
 * Secret fields that name a workspace credential instead of holding a value (`{ "credential": "AMPLITUDE_KEY" }`,
 * config-schema.ts). A destination's configuration is stored with the reference; what delivers, tests or deletes
 * puts the credential's value in its place for that use only (`resolveCredentialRefs`), so a rotated value is
 * used without touching the destination, and the value is never stored with it nor shown by it.
 */

type Config = Record<string, unknown>;
type Schema = Pick<DestinationDefinition, 'config'>;

/** A field's reference: the field and the credential it names. */
export interface FieldRef {
  field: string;
  credential: string;
}

/** Whether a field's schema is marked `secret(…)`, under any optional or default around it. */
function isSecret(schema: z.ZodType): boolean {
  for (let s: z.ZodType | undefined = schema; s; s = s instanceof z.ZodOptional || s instanceof z.ZodDefault ? (s.unwrap() as z.ZodType) : undefined) {
    if (s.meta()?.secret === true) return true;
  }
  return false;
}

const secretsOf = new WeakMap<z.ZodObject, string[]>();
/** The secret fields of a type's configuration, in the schema's order. */
export function secretFields(type: Schema): string[] {
  let found = secretsOf.get(type.config);
  if (!found) secretsOf.set(type.config, (found = Object.entries(type.config.shape).flatMap(([field, s]) => (isSecret(s as z.ZodType) ? [field] : []))));
  return found;
}

const REF_ERROR = 'must be the secret or a workspace credential, {"credential": NAME}';

/** A secret field's schema as a stored configuration has it: its value, or a reference (optional as the field is). */
function storedField(schema: z.ZodType): z.ZodType {
  if (schema instanceof z.ZodOptional) return z.optional(storedField(schema.unwrap() as z.ZodType));
  return z.union([schema, CredentialRef], { error: REF_ERROR });
}

const storedOf = new WeakMap<z.ZodObject, z.ZodObject>();
/** The schema a destination's configuration is checked with when stored: each secret field its value or a reference. */
export function storedConfigSchema(type: Schema): z.ZodObject {
  let stored = storedOf.get(type.config);
  if (!stored) {
    const fields = secretFields(type);
    const shape = Object.fromEntries(fields.map((field) => [field, storedField(type.config.shape[field] as z.ZodType)]));
    stored = fields.length === 0 ? type.config : (type.config.safeExtend(shape) as unknown as z.ZodObject);
    storedOf.set(type.config, stored);
  }
  return stored;
}

/** The references a configuration's secret fields hold. */
export const credentialRefs = (type: Schema, config: Config): FieldRef[] =>
  secretFields(type).flatMap((field) => {
    const value = config[field];
    return isCredentialRef(value) ? [{ field, credential: value.credential }] : [];
  });

/** The first field that is not a secret but is written as a reference: only secret fields may name a credential. */
export function misplacedRef(type: Schema, config: Config): { field: string; message: string } | undefined {
  const secrets = secretFields(type);
  const field = Object.keys(config).find((name) => !secrets.includes(name) && isCredentialRef(config[name]));
  if (field === undefined) return undefined;
  const which = secrets.length > 0 ? `only ${secrets.join(', ')} may` : 'no field of this type may';
  return { field, message: `is not a secret: ${which} name a workspace credential` };
}

/** A configuration with its references' values in their place, or why it cannot be (the field and its credential). */
export type Resolved = { ok: true; config: Config; values: Record<string, string> } | { ok: false; field: string; message: string };

/**
 * The configuration with each reference replaced by its credential's value in `values` (the workspace's
 * credentials, name → value), each value checked by its field's own schema; `values` of the result are the
 * credentials used, by name. A missing credential, or a value the field refuses, names the field and the
 * credential, never the value.
 */
export function resolveCredentialRefs(type: Schema, config: Config, values: Readonly<Record<string, string>>): Resolved {
  const refs = credentialRefs(type, config);
  if (refs.length === 0) return { ok: true, config, values: {} };
  const resolved: Config = { ...config };
  const used: Record<string, string> = {};
  for (const { field, credential } of refs) {
    const value = Object.hasOwn(values, credential) ? values[credential] : undefined;
    if (value === undefined) return { ok: false, field, message: `names the workspace credential ${credential}, which does not exist` };
    const schema = type.config.shape[field] as z.ZodType | undefined;
    const checked = schema?.safeParse(value);
    if (checked && !checked.success) {
      const problem = problemsOf(checked.error)[0]?.message ?? 'invalid';
      return { ok: false, field, message: `the value of the workspace credential ${credential} is refused: ${problem}` };
    }
    resolved[field] = checked ? checked.data : value;
    used[credential] = value;
  }
  return { ok: true, config: resolved, values: used };
}
