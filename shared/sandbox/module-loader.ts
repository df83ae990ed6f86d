import type { SandboxLibrary } from './protocol';
import type { Sandbox } from './sandbox';

export const LIBRARY_PREFIX = 'library ';
// Normalised name for an import that matches no library; can never collide with a real module name.
const UNRESOLVED_PREFIX = '\u0000unresolved:';

/**
 * Resolves the guest's imports to `libraries` by import name; the first import that matches none is
 * recorded in `sb.unresolvedImport`.
 */
export function installModuleLoader(sb: Sandbox, libraries: SandboxLibrary[]): void {
  const byImportName = new Map(libraries.map((lib) => [lib.importName, lib]));
  sb.rt.setModuleLoader(
    (moduleName) => {
      if (moduleName.startsWith(LIBRARY_PREFIX)) {
        const lib = byImportName.get(moduleName.slice(LIBRARY_PREFIX.length));
        if (lib) return lib.code;
      }
      const spec = moduleName.startsWith(UNRESOLVED_PREFIX) ? moduleName.slice(UNRESOLVED_PREFIX.length) : moduleName;
      sb.unresolvedImport ??= spec;
      return { error: new Error(`import from ${spec} failed. Module not found.`) };
    },
    (_base, requested) => {
      if (byImportName.has(requested)) return `${LIBRARY_PREFIX}${requested}`;
      sb.unresolvedImport ??= requested;
      return `${UNRESOLVED_PREFIX}${requested}`;
    },
  );
}
