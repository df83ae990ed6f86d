import RELEASE_SYNC from '@jitl/quickjs-singlefile-cjs-release-sync';
import { newQuickJSWASMModuleFromVariant, newVariant } from 'quickjs-emscripten-core';
import type { QuickJSWASMModule } from 'quickjs-emscripten-core';

const WASM_PAGE_BYTES = 64 * 1024;
// The prebuilt module declares a 16 MiB minimum for its imported memory.
const INITIAL_PAGES = 256;

// The project compiles without DOM typings, so the bit of the WebAssembly API used here is declared.
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(delta: number): number;
}
const { Memory: WasmMemoryConstructor } = (
  globalThis as unknown as { WebAssembly: { Memory: new (descriptor: { initial: number; maximum: number }) => WasmMemory } }
).WebAssembly;

/** One QuickJS WebAssembly instance with a hard-capped linear memory. Runtimes inside it are per invocation. */
export class WasmInstance {
  /** Set when the linear memory could not grow: QuickJS is out of memory, whatever the guest does about it. */
  memoryExhausted = false;

  private constructor(
    readonly module: QuickJSWASMModule,
    readonly memory: WasmMemory,
    readonly maxBytes: number,
  ) {}

  static async create(maxBytes: number, onExhausted?: () => void): Promise<WasmInstance> {
    const memory = new WasmMemoryConstructor({ initial: INITIAL_PAGES, maximum: maxBytes / WASM_PAGE_BYTES });
    // Filled in once the module exists; grow() may already run while it is being instantiated.
    const created: { instance?: WasmInstance; exhaustedEarly?: boolean } = {};
    // Emscripten grows the heap through this object's grow(); a throw means the cap was reached.
    // Latched for the invocation (reset when one starts): a guest that catches the resulting
    // "out of memory" and retries is then interrupted at its next interrupt check.
    const grow = memory.grow.bind(memory);
    memory.grow = (delta: number): number => {
      try {
        return grow(delta);
      } catch (err) {
        const { instance } = created;
        if (!instance) created.exhaustedEarly = true;
        else if (!instance.memoryExhausted) {
          instance.memoryExhausted = true;
          onExhausted?.();
        }
        throw err;
      }
    };
    const silent = (): void => undefined;
    const module = await newQuickJSWASMModuleFromVariant(
      newVariant(RELEASE_SYNC, {
        wasmMemory: memory as never,
        // Emscripten prints aborts to stderr; failures are reported through outcomes instead.
        emscriptenModule: { print: silent, printErr: silent } as object,
      }),
    );
    const instance = new WasmInstance(module, memory, maxBytes);
    instance.memoryExhausted = created.exhaustedEarly === true;
    created.instance = instance;
    return instance;
  }

  get bytes(): number {
    return this.memory.buffer.byteLength;
  }
}
