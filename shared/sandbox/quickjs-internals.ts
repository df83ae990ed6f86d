import type { QuickJSContext, QuickJSHandle, QuickJSRuntime, QuickJSWASMModule } from 'quickjs-emscripten-core';

// Access to quickjs-emscripten's private state, which the pinned version (package.json) fixes: the
// host-function table and cached handles that snapshots save and check, exception handles, and the C
// heap's malloc and free.

/** The JS side of quickjs-emscripten's host-function table, which guest function objects point into by id. */
export interface HostRefTable {
  nextId: number;
  freelist: number[];
  groups: Map<number, Map<number, unknown>>;
}

export interface ContextInternals {
  ffi: { QTS_ResolveException(ctx: number, value: number): number };
  ctx: { value: number };
  memory: { heapValueHandle(ptr: number): QuickJSHandle };
  _global?: unknown;
  _BigInt?: unknown;
  _Symbol?: unknown;
  _SymbolIterator?: unknown;
  _SymbolAsyncIterator?: unknown;
}

export function contextCaches(ctx: QuickJSContext): unknown[] {
  const c = ctx as unknown as ContextInternals;
  return [c._global, c._BigInt, c._Symbol, c._SymbolIterator, c._SymbolAsyncIterator];
}

export function hostRefTable(rt: QuickJSRuntime): HostRefTable | undefined {
  const table = (rt as unknown as { hostRefs?: Partial<HostRefTable> }).hostRefs;
  if (!table || typeof table.nextId !== 'number' || !Array.isArray(table.freelist) || !(table.groups instanceof Map)) {
    return undefined;
  }
  return table as HostRefTable;
}

export function copyHostRefs(table: HostRefTable): HostRefTable {
  return {
    nextId: table.nextId,
    freelist: [...table.freelist],
    groups: new Map([...table.groups].map(([id, group]) => [id, new Map(group)])),
  };
}

/**
 * encodeBinaryJSON/decodeBinaryJSON hand back QuickJS's exception marker instead of throwing. This
 * disposes such a handle and returns the pending exception, or returns undefined for a real value.
 */
export function takeException(ctx: QuickJSContext, handle: QuickJSHandle): QuickJSHandle | undefined {
  const internals = ctx as unknown as ContextInternals;
  const errorPtr = internals.ffi.QTS_ResolveException(internals.ctx.value, handle.value as unknown as number);
  if (!errorPtr) return undefined;
  handle.dispose();
  return internals.memory.heapValueHandle(errorPtr);
}

/** malloc and free of the C heap under a QuickJS WebAssembly module, or undefined if they are not exported. */
export function emscriptenHeap(module: QuickJSWASMModule): { malloc(bytes: number): number; free(ptr: number): void } | undefined {
  const emscripten = (module as unknown as { module?: { _malloc?: unknown; _free?: unknown } }).module;
  const malloc = emscripten?._malloc;
  const free = emscripten?._free;
  if (typeof malloc !== 'function' || typeof free !== 'function') return undefined;
  return { malloc: (bytes) => malloc(bytes) as number, free: (ptr) => void free(ptr) };
}
