import os from 'node:os';
import { OUTBOUND_ALLOWLIST_ENV } from '../outbound/allowlist';
import { SandboxError } from './errors';
import { encodePlainJson, readOutcome } from './bjson';
import { CONTRACT_ERRORS } from './guest-runtime';
import { limitMessages, resolveLimits } from './limits';
import type { SandboxLimits } from './limits';
import { SandboxPool } from './pool';
import type { EngineOutcome, SandboxLibrary } from './protocol';
import { countMetrics } from '../ops/metrics';
import { isRecord } from '../destinations/message';

export { DEFAULT_LIMITS } from './limits';
export type { SandboxLimits } from './limits';
export { SandboxError } from './errors';
export type { SandboxErrorKind } from './errors';
export type { SandboxLibrary } from './protocol';

export interface SandboxEvent {
  message: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

export interface SandboxRequest {
  /** codeVersion "1": an ES module exporting transformEvent or transformBatch. */
  code: string;
  /** Transformation name, used as the file name in stack traces; default 'base transformation'. */
  name?: string;
  /** Library revisions the code may import, resolved by importName. */
  libraries: SandboxLibrary[];
  events: SandboxEvent[];
  /** When true, log() calls are collected. */
  testMode?: boolean;
  limits?: Partial<SandboxLimits>;
  /** What getCredential(key) answers in this invocation. */
  credentials?: Record<string, string>;
}

export type TransformedEntry =
  { transformedEvent: Record<string, unknown>; metadata: Record<string, unknown> } | { error: string; metadata: Record<string, unknown> };

export interface SandboxResult {
  transformedEvents: TransformedEntry[];
  logs: string[];
}

export const DEFAULT_TRANSFORMATION_NAME = 'base transformation';

let pool: SandboxPool | undefined;

function sandboxPool(): SandboxPool {
  pool ??= new SandboxPool(Math.max(1, os.availableParallelism()));
  return pool;
}

function unwrap(outcome: EngineOutcome): string | Uint8Array {
  if (!outcome.ok) throw new SandboxError(outcome.kind, outcome.message);
  return outcome.output;
}

function tampered(): SandboxError {
  return new SandboxError('contract', 'the transformation produced a result the sandbox cannot read');
}

/**
 * The reference product's error text: the error's stack, headed by "Name: message", cut after the last
 * line that mentions the entry point, so frames of the runtime around user code never show.
 */
function stackUpToEntry(head: string, stack: string, entry: string): string {
  const lines = `${head}\n${stack}`.split('\n');
  while (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const last = lines.reduce((at, line, i) => (line.includes(entry) ? i : at), 0);
  return lines.slice(0, last + 1).join('\n');
}

function eventErrorText(error: unknown, entry: string): string {
  if (typeof error === 'number') return CONTRACT_ERRORS[error] ?? 'invalid transformation result';
  if (Array.isArray(error) && error.length === 2) return stackUpToEntry(String(error[0]), String(error[1]), entry);
  return String(error);
}

/** Turns the guest's result into entries, attaching each output's metadata from the input events. */
function decodeResult(output: string | Uint8Array, events: SandboxEvent[], limits: SandboxLimits): SandboxResult {
  let parsed: unknown;
  try {
    parsed = readOutcome(output);
  } catch {
    throw tampered();
  }
  if (!isRecord(parsed)) throw tampered();
  if (typeof parsed.c === 'string') {
    throw new SandboxError('contract', `Expected one of transformEvent,transformBatch. Found ${parsed.c}`);
  }
  // The guest stops collecting logs once they alone exceed the output limit, and says so.
  if (parsed.x === 1) throw new SandboxError('output', limitMessages.output(limits));
  const { r: rows, l: logs } = parsed;
  if (!Array.isArray(rows) || !Array.isArray(logs)) throw tampered();
  const metadataAt = (index: unknown): Record<string, unknown> => (typeof index === 'number' && index >= 0 ? (events[index]?.metadata ?? {}) : {});
  const entry = typeof parsed.e === 'string' ? parsed.e : '';
  const transformedEvents: TransformedEntry[] = new Array(rows.length);
  for (let i = 0; i < rows.length; i++) {
    const row: unknown = rows[i];
    if (!Array.isArray(row)) throw tampered();
    if (row.length === 3) {
      transformedEvents[i] = { error: eventErrorText(row[2], entry), metadata: metadataAt(row[0]) };
    } else {
      const event: unknown = row[1];
      if (!isRecord(event)) throw tampered();
      transformedEvents[i] = { transformedEvent: event, metadata: metadataAt(row[0]) };
    }
  }
  return { transformedEvents, logs: logs.map(String) };
}

/**
 * Runs a transformation over a batch of events in a fresh QuickJS sandbox. Per-event failures are
 * entries of the result; failures of the whole invocation (compile, import, contract, limits) reject
 * with a SandboxError.
 */
export async function runTransformation(req: SandboxRequest): Promise<SandboxResult> {
  const limits = resolveLimits(req.limits);
  req.events.forEach((event, i) => {
    if (!isRecord(event) || !isRecord(event.message)) {
      throw new SandboxError('contract', `event ${i} has no message object`);
    }
  });
  const outcome = await sandboxPool().submit({
    op: 'run',
    code: req.code,
    name: req.name || DEFAULT_TRANSFORMATION_NAME,
    libraries: req.libraries,
    // The binary form spares the guest most of JSON.parse; JSON text covers what it cannot express.
    input: encodePlainJson(req.events, req.events.length * 1024) ?? JSON.stringify(req.events),
    testMode: req.testMode === true,
    limits,
    allowlist: process.env[OUTBOUND_ALLOWLIST_ENV] ?? '',
    ...(req.credentials && { credentials: req.credentials }),
  });
  // One count per invocation: ok, or the kind of failure (timeout, memory, compile, runtime, …).
  countMetrics({ SandboxInvocations: 1 }, { outcome: outcome.ok ? 'ok' : outcome.kind });
  return decodeResult(unwrap(outcome), req.events, limits);
}

/** Compiles and evaluates one library module on its own; rejects with a SandboxError when it fails. */
export async function checkLibrary(lib: SandboxLibrary, limits?: Partial<SandboxLimits>): Promise<void> {
  unwrap(await sandboxPool().submit({ op: 'check', library: lib, limits: resolveLimits(limits), allowlist: process.env[OUTBOUND_ALLOWLIST_ENV] ?? '' }));
}

/** Terminates the worker pool; a later call starts a new one. */
export async function shutdownSandbox(): Promise<void> {
  const current = pool;
  pool = undefined;
  await current?.shutdown();
}
