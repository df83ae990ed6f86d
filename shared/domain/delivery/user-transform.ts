import type { Message } from '../../destinations';
import type { InvocationCredentials } from '../credentials/credential-service';
import type { Destination } from '../catalog/schemas';
import { runPublishedFor, type PublishedCode } from '../transformations/published';

/** What the rules and user-transformation stages made of one input event (`rule`: the rule that stopped or failed it). */
export type EventOutcome = { outputs: Message[] } | { filtered: true; rule?: string } | { error: string; rule?: string };

/**
 * The destination's published transformation over a batch of events: one sandbox invocation for the whole
 * batch, its outputs grouped back by the input event they came from. Without a published transformation,
 * every event goes on as it is. A failure of the whole invocation fails every event of the batch.
 */
export async function transformForDelivery(
  published: PublishedCode | undefined,
  workspaceId: string,
  destination: Destination,
  events: Message[],
  credentialsOf: () => Promise<InvocationCredentials>,
): Promise<{ outcomes: EventOutcome[]; secrets: string[] }> {
  if (!published) return { outcomes: events.map((event) => ({ outputs: [event] })), secrets: [] };
  const credentials = await credentialsOf();
  const result = await runPublishedFor(published, workspaceId, destination, events, credentials.values);
  if (!result.ok) return { outcomes: events.map(() => ({ error: `transformation failed: ${result.error}` })), secrets: credentials.secrets };
  const outputs: Message[][] = events.map(() => []);
  const errors: (string | undefined)[] = events.map(() => undefined);
  for (const entry of result.entries) {
    if (entry.index < 0) continue;
    if ('error' in entry) errors[entry.index] ??= entry.error;
    else outputs[entry.index]!.push(entry.event);
  }
  const outcomes = events.map((_, i): EventOutcome => {
    if (errors[i] !== undefined) return { error: `transformation failed: ${errors[i]}` };
    return outputs[i]!.length > 0 ? { outputs: outputs[i]! } : { filtered: true as const };
  });
  return { outcomes, secrets: credentials.secrets };
}
