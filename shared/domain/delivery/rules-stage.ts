import type { Message } from '../../destinations';
import { withoutRoutingFields } from '../../destinations/routing-overrides';
import type { Destination } from '../catalog/schemas';
import type { InvocationCredentials } from '../credentials/credential-service';
import { applyRules, type CompiledRules } from '../rules/rules';
import type { PublishedCode } from '../transformations/published';
import { transformForDelivery, type EventOutcome } from './user-transform';

/**
 * The connection's rules, then the destination's transformation on what they let through. An event a rule
 * stops is filtered with the rule's label; one a rule fails (a missing salt) is aborted, never sent in clear.
 * The workspace's credentials are read (once per round) only when a rule needs one. `seen` is each event as
 * the rules left it: what delivery keys its records by (a hashed userId is never stored in clear in a key).
 * Before both, each event's routing fields are taken out (routing-overrides.ts): what its sender wrote never
 * chooses where the destination sends it; only the transformation's output may.
 */
export async function rulesThenTransform(
  rules: CompiledRules,
  published: PublishedCode | undefined,
  workspaceId: string,
  destination: Destination,
  arrived: Message[],
  credentialsOf: () => Promise<InvocationCredentials>,
): Promise<{ outcomes: EventOutcome[]; secrets: string[]; seen: Message[] }> {
  const events = arrived.map(withoutRoutingFields);
  if (rules.steps.length === 0) return { ...(await transformForDelivery(published, workspaceId, destination, events, credentialsOf)), seen: events };
  const credentials = rules.credentialKeys.length > 0 ? await credentialsOf() : undefined;
  const results = events.map((event) => applyRules(rules, event, credentials?.values));
  const passing = results.flatMap((result) => ('event' in result ? [result.event] : []));
  const transformed = await transformForDelivery(published, workspaceId, destination, passing, credentialsOf);
  let next = 0;
  const outcomes = results.map((result): EventOutcome => {
    if ('event' in result) return transformed.outcomes[next++]!;
    if ('stopped' in result) return { filtered: true, rule: result.stopped };
    return { error: `rule ${result.rule}: ${result.error}`, rule: result.rule };
  });
  const seen = results.map((result, i) => ('event' in result ? result.event : events[i]!));
  return { outcomes, secrets: [...(credentials?.secrets ?? []), ...transformed.secrets], seen };
}
