export interface SandboxLimits {
  /** Wall-clock budget of one invocation, from the moment a worker starts it. */
  deadlineMs: number;
  /** Hard cap on the WebAssembly linear memory of the QuickJS instance that runs the invocation. */
  memoryBytes: number;
  /** QuickJS stack budget; deeper recursion fails the invocation. */
  stackBytes: number;
  /** Cap on the serialised result (transformed events plus logs). */
  outputBytes: number;
}

const KiB = 1024;
const MiB = 1024 * KiB;
const WASM_PAGE_BYTES = 64 * KiB;

export const DEFAULT_LIMITS: SandboxLimits = Object.freeze({
  deadlineMs: 4000,
  memoryBytes: 128 * MiB,
  stackBytes: 1 * MiB,
  outputBytes: 4 * MiB,
});

// The prebuilt QuickJS links against a 16 MiB initial memory and a 5 MiB shadow stack, so the cap must
// leave room above that; the stack ceiling stays well inside both the shadow stack and the worker's
// native stack (see WORKER_STACK_MB), so QuickJS's own overflow check always fires first.
export const MIN_MEMORY_BYTES = 32 * MiB;
export const MAX_MEMORY_BYTES = 2048 * MiB - WASM_PAGE_BYTES;
export const MIN_STACK_BYTES = 64 * KiB;
export const MAX_STACK_BYTES = 2 * MiB;
export const WORKER_STACK_MB = 64;

function clamp(value: number, min: number, max: number): number {
  return Math.min(max, Math.max(min, value));
}

function finite(value: number | undefined, fallback: number): number {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

export function resolveLimits(partial: Partial<SandboxLimits> = {}): SandboxLimits {
  const memory = clamp(finite(partial.memoryBytes, DEFAULT_LIMITS.memoryBytes), MIN_MEMORY_BYTES, MAX_MEMORY_BYTES);
  return {
    deadlineMs: clamp(Math.ceil(finite(partial.deadlineMs, DEFAULT_LIMITS.deadlineMs)), 1, 15 * 60 * 1000),
    memoryBytes: Math.floor(memory / WASM_PAGE_BYTES) * WASM_PAGE_BYTES,
    stackBytes: clamp(Math.floor(finite(partial.stackBytes, DEFAULT_LIMITS.stackBytes)), MIN_STACK_BYTES, MAX_STACK_BYTES),
    outputBytes: clamp(Math.floor(finite(partial.outputBytes, DEFAULT_LIMITS.outputBytes)), 1 * KiB, 1024 * MiB),
  };
}

/** `134217728` → `134217728 bytes (128 MiB)`: exact for the caller, readable for people. */
export function describeBytes(bytes: number): string {
  if (bytes >= MiB && bytes % MiB === 0) return `${bytes} bytes (${bytes / MiB} MiB)`;
  if (bytes >= KiB && bytes % KiB === 0) return `${bytes} bytes (${bytes / KiB} KiB)`;
  return `${bytes} bytes`;
}

export const limitMessages = {
  timeout: (l: SandboxLimits) => `execution deadline of ${l.deadlineMs} ms exceeded`,
  memory: (l: SandboxLimits) => `memory limit of ${describeBytes(l.memoryBytes)} exceeded`,
  stack: (l: SandboxLimits) => `stack size limit of ${describeBytes(l.stackBytes)} exceeded (recursion too deep)`,
  output: (l: SandboxLimits) => `output size limit of ${describeBytes(l.outputBytes)} exceeded`,
};
