import type { Message } from '../../destinations';
import { runTransformation, SandboxError, type SandboxLibrary } from '../../sandbox';

/** One entry of the user-transformation stage, in the order the transformation gave them. */
export type StageEntry = { index: number; event: Message } | { index: number; error: string };

export type StageResult =
  /** The invocation ran: its entries, each naming the input event (`index`) it came from, and its logs. */
  | { ok: true; entries: StageEntry[]; logs: string[] }
  /** The whole invocation failed (compile, import, contract, a limit): its message. */
  | { ok: false; error: string };

/**
 * The user-transformation stage, the one way Weir runs a transformation revision over events: live delivery,
 * the test interface and the publish tester call it. Each event gets its metadata (`context` plus its own
 * messageId, event name and type, and source), and each entry is traced back to its input event.
 */
export async function runUserStage(input: {
  code: string;
  name: string;
  libraries: SandboxLibrary[];
  events: Message[];
  context: Record<string, unknown>;
  credentials?: Record<string, string>;
  testMode?: boolean;
}): Promise<StageResult> {
  const metadata = input.events.map((event) => ({
    ...input.context,
    ...(event.sourceId !== undefined && { sourceId: event.sourceId }),
    messageId: event.messageId,
    eventName: event.event,
    eventType: event.type,
  }));
  try {
    const result = await runTransformation({
      code: input.code,
      name: input.name,
      libraries: input.libraries,
      events: input.events.map((message, i) => ({ message, metadata: metadata[i] })),
      ...(input.testMode && { testMode: true }),
      ...(input.credentials && { credentials: input.credentials }),
    });
    // The sandbox hands back the very metadata object of the input an entry came from.
    const entries = result.transformedEvents.map((entry): StageEntry => {
      const index = metadata.indexOf(entry.metadata as (typeof metadata)[number]);
      return 'error' in entry ? { index, error: entry.error } : { index, event: entry.transformedEvent };
    });
    return { ok: true, entries, logs: result.logs };
  } catch (error) {
    if (error instanceof SandboxError) return { ok: false, error: error.message };
    throw error;
  }
}
