import { credentialRefs, resolveCredentialRefs } from '../../destinations/credential-refs';
import { destinationDefinition } from '../../destinations/definitions';
import type { Destination } from '../catalog/schemas';
import type { InvocationCredentials } from '../credentials/credential-service';

/**
 * A destination as it is sent with: the credentials its configuration names (credential-refs.ts) in place, and
 * their values by name (`named`), which what people read names in place of the values (samples, errors,
 * failures: redact.ts). Or why it cannot be sent: a credential it names is gone, or holds a value the field refuses.
 */
type SendableDestination = { ok: true; destination: Destination; named: Record<string, string>; secrets: string[] } | { ok: false; error: string };

/**
 * The destination with its credentials' values, read through `credentialsOf` only when it names any: where a
 * delivery round reads them (once per workspace and round), a rotated value is sent from the next round on.
 */
export async function sendableDestination(
  destination: Destination,
  credentialsOf: () => Promise<Pick<InvocationCredentials, 'values'>>,
): Promise<SendableDestination> {
  const definition = destinationDefinition(destination.type);
  if (!definition || credentialRefs(definition, destination.config).length === 0) return { ok: true, destination, named: {}, secrets: [] };
  const resolved = resolveCredentialRefs(definition, destination.config, (await credentialsOf()).values);
  if (!resolved.ok) return { ok: false, error: `config.${resolved.field}: ${resolved.message}` };
  return { ok: true, destination: { ...destination, config: resolved.config }, named: resolved.values, secrets: Object.values(resolved.values) };
}
