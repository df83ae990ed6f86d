import camelCase from 'lodash.camelcase';

/** A library's import name: lodash camelCase of its name, as the reference engine derives its handles. */
export const importNameOf = (libraryName: string): string => camelCase(libraryName);

/**
 * The module names a piece of code imports (`import x from "m"`, `import {a as b} from 'm'`,
 * `import * as NS from "m"`, `import "m"`), trimmed and de-duplicated. Like the reference's static parser it
 * also sees imports inside comments, which errs on the side of keeping a library that might be used.
 */
export function importedModules(code: string): string[] {
  const found = new Set<string>();
  const pattern = /\bimport\s*(?:[\w$*{}\s,]+?\s*from\s*)?(["'])([^"'\n]+)\1/g;
  for (const match of code.matchAll(pattern)) found.add((match[2] ?? '').trim());
  found.delete('');
  return [...found];
}
