import type { Message } from '../../destinations';
import type { CodeRepository } from '../../persistence/code-repository';
import type { InvocationCredentials } from '../credentials/credential-service';
import { runTransformation, SandboxError } from '../../sandbox';
import type { Destination } from '../catalog/schemas';
import { publishedTransformation } from '../transformations/published';

/** What the user-transformation stage made of one input event. */
export type EventOutcome = { outputs: Message[] } | { filtered: true } | { error: string };

/**
 * The destination's published transformation over a batch of events: one sandbox invocation for the whole
 * batch, its outputs grouped back by the input event they came from. Without a published transformation,
 * every event goes on as it is. A failure of the whole invocation fails every event of the batch.
 */
export async function transformForDelivery(
  code: CodeRepository,
  workspaceId: string,
  destination: Destination,
  events: Message[],
  credentialsOf: () => Promise<InvocationCredentials>,
): Promise<{ outcomes: EventOutcome[]; secrets: string[] }> {
  const published = await publishedTransformation(code, workspaceId, destination.transformationId);
  if (!published) return { outcomes: events.map((event) => ({ outputs: [event] })), secrets: [] };
  const credentials = await credentialsOf();
  const metadata = events.map((event) => ({
    workspaceId,
    sourceId: event.sourceId,
    destinationId: destination.id,
    destinationType: destination.type,
    transformationId: published.revision.id,
    transformationVersionId: published.revision.versionId,
    messageId: event.messageId,
    eventName: event.event,
    eventType: event.type,
  }));
  let result;
  try {
    result = await runTransformation({
      code: published.revision.code,
      name: published.revision.name,
      libraries: published.libraries,
      events: events.map((message, i) => ({ message, metadata: metadata[i] })),
      credentials: credentials.values,
    });
  } catch (error) {
    if (!(error instanceof SandboxError)) throw error;
    return { outcomes: events.map(() => ({ error: `transformation failed: ${error.message}` })), secrets: credentials.secrets };
  }
  const outputs: Message[][] = events.map(() => []);
  const errors: (string | undefined)[] = events.map(() => undefined);
  for (const entry of result.transformedEvents) {
    // The sandbox hands back the very metadata object of the input an output came from.
    const index = metadata.indexOf(entry.metadata as (typeof metadata)[number]);
    if (index < 0) continue;
    if ('error' in entry) errors[index] ??= entry.error;
    else outputs[index]!.push(entry.transformedEvent);
  }
  const outcomes = events.map((_, i): EventOutcome => {
    if (errors[i] !== undefined) return { error: `transformation failed: ${errors[i]}` };
    return outputs[i]!.length > 0 ? { outputs: outputs[i]! } : { filtered: true as const };
  });
  return { outcomes, secrets: credentials.secrets };
}
