import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/**
 * Everything in a folder's TypeScript that outlives a call: module-level `let`s, and maps, sets and caches
 * made at module level or as a class's field (a class whose instance a process keeps). Each is named
 * `file:name` or `file:Class.field`, the file relative to the repository. What TenantCache builds is left out
 * (its keys begin with the workspace), and so are constant tables: a Map or Set made from a list at load
 * and never changed after.
 */
export interface Holder {
  id: string;
  kind: 'let' | 'module' | 'field';
}

const ROOT = path.resolve(__dirname, '../..');
const KEEPERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef']);
const MUTATORS = ['set', 'add', 'delete', 'clear'];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [full] : [];
  });
}

const unwrap = (node: ts.Expression): ts.Expression =>
  ts.isParenthesizedExpression(node) || ts.isAsExpression(node) || ts.isSatisfiesExpression(node) ? unwrap(node.expression) : node;

/** The class a `new` makes, when it keeps things: a Map, a Set, … or anything named a cache or a pool (not TenantCache). */
function keeperMade(initializer: ts.Expression | undefined): ts.NewExpression | undefined {
  const made = initializer && unwrap(initializer);
  if (!made || !ts.isNewExpression(made)) return undefined;
  const name = made.expression.getText();
  if (name === 'TenantCache') return undefined;
  return KEEPERS.has(name) || /(Cache|Pool)$/.test(name) ? made : undefined;
}

const keeperTyped = (type: ts.TypeNode | undefined) => type !== undefined && ts.isTypeReferenceNode(type) && KEEPERS.has(type.typeName.getText());

/** A Map or Set made from a list and never changed in its file: a lookup table, not a cache. */
function constantTable(made: ts.NewExpression, name: string, text: string): boolean {
  if (!made.arguments?.length) return false;
  const escaped = name.replace(/[$]/g, '\\$');
  return !MUTATORS.some((m) => new RegExp(`\\b${escaped}\\.${m}\\(`).test(text));
}

export function holdersIn(...folders: string[]): Holder[] {
  const found: Holder[] = [];
  for (const file of folders.flatMap((folder) => sourceFiles(path.join(ROOT, folder)))) {
    const text = readFileSync(file, 'utf8');
    const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
    const at = path.relative(ROOT, file).split(path.sep).join('/');
    for (const statement of source.statements) {
      if (ts.isVariableStatement(statement)) {
        const isLet = (statement.declarationList.flags & ts.NodeFlags.Let) !== 0;
        for (const d of statement.declarationList.declarations) {
          const name = d.name.getText();
          const made = keeperMade(d.initializer);
          if (isLet) found.push({ id: `${at}:${name}`, kind: 'let' });
          else if (made && !constantTable(made, name, text)) found.push({ id: `${at}:${name}`, kind: 'module' });
        }
      }
      const classes = ts.isClassDeclaration(statement) ? [statement] : [];
      for (const c of classes) {
        for (const member of c.members) {
          if (!ts.isPropertyDeclaration(member)) continue;
          if (keeperMade(member.initializer) || (!member.initializer && keeperTyped(member.type)))
            found.push({ id: `${at}:${c.name?.getText() ?? 'default'}.${member.name.getText()}`, kind: 'field' });
        }
      }
    }
  }
  return found;
}
