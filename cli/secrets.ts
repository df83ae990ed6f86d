import { secretFields } from '../shared/destinations/credential-refs';
import { destinationDefinition } from '../shared/destinations/definitions';
import { isCredentialRef } from '../shared/domain/credentials/schemas';
import type { EnvRef } from './spec/types';

/**
 * Secrets in a spec. The spec declares the workspace's credentials by key, each with the environment variable
 * that holds its value (`{ env: NAME }`, a CI secret): the only place weir reads a secret from the environment.
 * A destination's secret fields (those its type's definition marks secret) name one of them,
 * `{ credential: NAME }`, never hold a value: the workspace keeps the reference and delivery reads the value
 * from the credential. A Slack alert channel's webhook URL is read from the environment as `{ env: NAME }`.
 */
export { isCredentialRef };

export const isEnvRef = (value: unknown): value is EnvRef =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as EnvRef).env === 'string' && Object.keys(value).length === 1;

/** The secret fields of a destination type (none for a type weir does not know). */
export const destinationSecrets = (type: string): string[] => {
  const definition = destinationDefinition(type);
  return definition ? secretFields(definition) : [];
};

/** The name export gives a secret held inline: `amplitude-prod` and `apiKey` give AMPLITUDE_PROD_API_KEY. */
export const envNameOf = (key: string, field: string): string =>
  `${key}_${field}`
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toUpperCase();

/** What an unresolved reference stands for while checking offline: a string, as every secret takes. */
export const OFFLINE_PLACEHOLDER = 'x';

/** Resolves `{ env: NAME }` from the environment; a missing variable is an error naming it. */
export function resolveEnv(value: unknown, env: NodeJS.ProcessEnv, offline: boolean): { value: unknown; missing?: string } {
  if (!isEnvRef(value)) return { value };
  if (offline) return { value: OFFLINE_PLACEHOLDER };
  const resolved = env[value.env];
  return resolved === undefined || resolved === '' ? { value: undefined, missing: value.env } : { value: resolved };
}
