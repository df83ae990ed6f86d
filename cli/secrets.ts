import type { EnvRef } from './spec/types';

/**
 * Secrets in a spec. Destination types that read a secret from the workspace credentials name it in a
 * `…Credential` field (S3, Firehose): that name is written as it is. Types that keep a secret in their
 * configuration (an API key, a token, a password, a service account key) get it from the environment weir runs
 * in, written `{ env: NAME }`: the files hold the variable's name, never the value, and so does everything weir
 * prints. A Slack channel's webhook URL is a secret of the same kind.
 */
const SECRET_FIELD = /(key|token|secret|password)$/i;

export const isSecretField = (field: string): boolean => !/Credential$/.test(field) && (SECRET_FIELD.test(field) || field === 'credentials');

export const isEnvRef = (value: unknown): value is EnvRef =>
  typeof value === 'object' && value !== null && !Array.isArray(value) && typeof (value as EnvRef).env === 'string' && Object.keys(value).length === 1;

/** The variable export names a secret after: `amplitude-prod` and `apiKey` give AMPLITUDE_PROD_API_KEY. */
export const envNameOf = (key: string, field: string): string =>
  `${key}_${field}`
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .replace(/^(\d)/, '_$1')
    .toUpperCase();

/** What an unresolved reference stands for while checking offline: a string, as every secret field takes. */
export const OFFLINE_PLACEHOLDER = 'x';

/** Resolves `{ env: NAME }` from the environment; a missing variable is an error naming it. */
export function resolveEnv(value: unknown, env: NodeJS.ProcessEnv, offline: boolean): { value: unknown; missing?: string } {
  if (!isEnvRef(value)) return { value };
  if (offline) return { value: OFFLINE_PLACEHOLDER };
  const resolved = env[value.env];
  return resolved === undefined || resolved === '' ? { value: undefined, missing: value.env } : { value: resolved };
}
