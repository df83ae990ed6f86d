import { isDeepStrictEqual } from 'node:util';
import { SandboxError, checkLibrary, type SandboxLibrary } from '../../sandbox';
import { runUserStage } from './user-stage';
import type { UserCodeReads } from './ports';
import type { CredentialService } from '../credentials/credential-service';
import { redact } from '../credentials/redact';
import { ValidationError } from '../errors';
import { DEFAULT_EVENTS } from './default-events';
import { MAX_SAMPLE_EVENTS, type UserCodeHead, type UserCodeRevision } from './schemas';

/** Library revisions chosen for a test run, by import name; they win over the published ones. */
export type LibraryChoice = Map<string, UserCodeRevision>;

/**
 * One error of a test run. An error caused by one input event names it by `messageId` (when the event has
 * one) and by `eventIndex`, its position in the input, since sample events may share a messageId; errors
 * of the whole run (compile, import, limits, a throwing transformBatch) carry only the message.
 */
export interface EventError {
  message: string;
  messageId?: string | number;
  eventIndex?: number;
  event?: unknown;
}

/** The outcome of running one transformation revision on a set of events. */
export interface RunOutcome {
  /** Output events of the events that passed, bare (no metadata wrappers); dropped events are absent. */
  transformedEvents: Record<string, unknown>[];
  errors: EventError[];
  logs: string[];
}

/** Sample events from `testInput`: a JSON array, or a string holding one. */
export function parseTestInput(input: unknown, field: string): Record<string, unknown>[] {
  let value = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input);
    } catch (error) {
      throw new ValidationError(`${field}: not valid JSON (${(error as Error).message})`);
    }
  }
  if (!Array.isArray(value) || value.some((e) => e === null || typeof e !== 'object' || Array.isArray(e))) {
    throw new ValidationError(`${field}: must be a JSON array of event objects`);
  }
  if (value.length > MAX_SAMPLE_EVENTS) throw new ValidationError(`${field}: at most ${MAX_SAMPLE_EVENTS} events`);
  return value as Record<string, unknown>[];
}

export const defaultEvents = (): Record<string, unknown>[] => structuredClone(DEFAULT_EVENTS);

/**
 * Finds the library revisions a transformation imports: the chosen revisions first, else each library's
 * published revision. Lookups are cached, so one request that runs many tests reads each library once.
 */
export class LibraryResolver {
  private heads?: Promise<UserCodeHead[]>;
  private readonly published = new Map<string, Promise<UserCodeRevision | undefined>>();

  constructor(
    private readonly code: Pick<UserCodeReads, 'listHeads' | 'getRevision'>,
    private readonly workspaceId: string,
    private readonly chosen: LibraryChoice = new Map(),
  ) {}

  async librariesFor(imports: string[]): Promise<SandboxLibrary[]> {
    const libraries: SandboxLibrary[] = [];
    for (const importName of new Set(imports)) {
      const revision = this.chosen.get(importName) ?? (await this.publishedRevision(importName));
      if (revision) libraries.push({ importName, name: revision.name, code: revision.code });
    }
    return libraries;
  }

  private publishedRevision(importName: string): Promise<UserCodeRevision | undefined> {
    let revision = this.published.get(importName);
    if (!revision) {
      revision = (async () => {
        this.heads ??= this.code.listHeads('library', this.workspaceId);
        const head = (await this.heads).find((h) => h.importName === importName);
        return head?.publishedVersionId ? this.code.getRevision('library', this.workspaceId, head.id, head.publishedVersionId) : undefined;
      })();
      this.published.set(importName, revision);
    }
    return revision;
  }
}

/**
 * Runs transformation revisions in the sandbox against the libraries they import. An import that resolves
 * to no library fails the run with the engine's "Module not found" error.
 */
export class TransformationTester {
  constructor(
    private readonly code: Pick<UserCodeReads, 'listHeads' | 'getRevision'>,
    /** The workspace's credentials for getCredential; test runs see the same values as live traffic. */
    private readonly credentials?: CredentialService,
  ) {}

  /** A resolver for one request: `chosen` library revisions win over the published ones. */
  resolver(workspaceId: string, chosen?: LibraryChoice): LibraryResolver {
    return new LibraryResolver(this.code, workspaceId, chosen);
  }

  async run(
    workspaceId: string,
    revision: UserCodeRevision,
    events: Record<string, unknown>[],
    libraries: LibraryResolver = this.resolver(workspaceId),
  ): Promise<RunOutcome> {
    const credentials = await this.credentials?.forInvocation(workspaceId);
    const secrets = credentials?.secrets ?? [];
    const result = await runUserStage({
      code: revision.code,
      name: revision.name,
      libraries: await libraries.librariesFor(revision.imports ?? []),
      events,
      context: { workspaceId, transformationId: revision.id, transformationVersionId: revision.versionId },
      testMode: true,
      ...(credentials && { credentials: credentials.values }),
    });
    if (!result.ok) {
      return { transformedEvents: [], errors: [{ message: redact(result.error, secrets) }], logs: [] };
    }
    const transformedEvents: Record<string, unknown>[] = [];
    const errors: EventError[] = [];
    for (const entry of result.entries) {
      if ('error' in entry) errors.push(eventError(entry.error, events, entry.index));
      else transformedEvents.push(entry.event);
    }
    return redact({ transformedEvents, errors, logs: result.logs }, secrets);
  }

  /** A library revision compiles and evaluates on its own; the error text when it does not. */
  async checkLibrary(revision: UserCodeRevision): Promise<string | undefined> {
    try {
      await checkLibrary({ importName: revision.importName ?? '', name: revision.name, code: revision.code });
      return undefined;
    } catch (error) {
      if (error instanceof SandboxError) return error.message;
      throw error;
    }
  }
}

function eventError(message: string, events: Record<string, unknown>[], eventIndex: number): EventError {
  const event = events[eventIndex];
  if (!event) return { message };
  const { messageId } = event;
  const traceable = typeof messageId === 'string' || typeof messageId === 'number';
  return { message, ...(traceable && { messageId }), eventIndex, event };
}

/** Compares a run's output with the expected output of a test definition. */
export const matchesExpected = (actual: unknown[], expected: unknown[] | undefined): boolean => expected === undefined || isDeepStrictEqual(actual, expected);
