import Ajv2020, { type ErrorObject } from 'ajv/dist/2020';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument } from 'yaml';
import { Problems, SpecFile } from './problems';
import { KINDS, type Item, type Kind, type Path, type SpecItems } from './types';

/** The JSON Schema of a spec file: the one published in the docs, which editors read too. */
export const SCHEMA_FILE = path.join(__dirname, '../../docs/reference/workspace-spec.schema.json');
/** The line export writes first in every YAML file, so editors complete and check it. */
export const SCHEMA_COMMENT = '# yaml-language-server: $schema=https://raw.githubusercontent.com/weir/weir/main/docs/reference/workspace-spec.schema.json';

export interface LoadedSpec {
  dir: string;
  files: Map<string, SpecFile>;
  items: SpecItems;
  problems: Problems;
}

/** The YAML files of a folder and its subfolders (not hidden ones, not node_modules), in a stable order. */
export function specFiles(dir: string): string[] {
  const found: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules') continue;
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) walk(child);
      else if (/\.ya?ml$/.test(entry.name)) found.push(child);
    }
  };
  walk('');
  return found;
}

let validator: ReturnType<Ajv2020['compile']> | undefined;
const schemaValidator = () => (validator ??= new Ajv2020({ allErrors: true, strict: false }).compile(JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as object));

const pathOf = (pointer: string): Path =>
  pointer
    .split('/')
    .slice(1)
    .map((part) => part.replace(/~1/g, '/').replace(/~0/g, '~'))
    .map((part) => (/^\d+$/.test(part) ? Number(part) : part));

/** Ajv's errors as problems: the field that is wrong and a sentence; the branches of a oneOf/anyOf left out. */
function schemaProblems(errors: ErrorObject[]): { path: Path; message: string }[] {
  const out: { path: Path; message: string }[] = [];
  for (const error of errors) {
    const at = pathOf(error.instancePath);
    if (error.keyword === 'additionalProperties') {
      const extra = (error.params as { additionalProperty: string }).additionalProperty;
      out.push({ path: [...at, extra], message: `unknown field ${extra}` });
    } else if (error.keyword === 'required') {
      const missing = (error.params as { missingProperty: string }).missingProperty;
      if (error.schemaPath.includes('/oneOf/')) continue;
      out.push({ path: [...at, missing], message: 'is required' });
    } else if (error.keyword === 'oneOf') {
      out.push({ path: at, message: 'must have exactly one of specs, fromEventModels' });
    } else if (error.keyword === 'enum') {
      out.push({ path: at, message: `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.join(', ')}` });
    } else if (error.keyword === 'anyOf' || error.keyword === 'not') {
      if (error.keyword === 'anyOf')
        out.push({
          path: at,
          message: at.includes('config') ? 'a credential is named { credential: NAME } and nothing else' : 'a secret is written { env: NAME } and nothing else',
        });
    } else out.push({ path: at, message: error.message ?? 'is not valid' });
  }
  return out;
}

/** Reads every YAML file of `dir`: each checked against the schema, its items gathered by kind with their origin. */
export function loadSpec(dir: string): LoadedSpec {
  const files = new Map<string, SpecFile>();
  const problems = new Problems(files);
  const items = Object.fromEntries(KINDS.map((k) => [k, []])) as unknown as SpecItems;
  if (!statSync(dir, { throwIfNoEntry: false })?.isDirectory()) {
    problems.list.push({ file: dir, line: 1, field: '(folder)', message: 'no such folder' });
    return { dir, files, items, problems };
  }
  for (const rel of specFiles(dir)) {
    const name = path.join(dir, rel);
    const lineCounter = new LineCounter();
    const doc = parseDocument(readFileSync(name, 'utf8'), { lineCounter, prettyErrors: false, uniqueKeys: true });
    const file = new SpecFile(name, doc, lineCounter);
    files.set(name, file);
    if (doc.errors.length > 0) {
      for (const error of doc.errors) {
        const line = error.linePos?.[0].line ?? lineCounter.linePos(error.pos[0]).line;
        problems.list.push({ file: name, line, field: '(yaml)', message: error.message.split('\n')[0]! });
      }
      continue;
    }
    const value: unknown = doc.toJS() ?? {};
    const validate = schemaValidator();
    if (!validate(value)) {
      for (const p of schemaProblems(validate.errors ?? [])) problems.add({ file: name, path: [] }, p.path, p.message);
      continue;
    }
    for (const kind of KINDS) {
      const list = (value as Partial<Record<Kind, unknown[]>>)[kind] ?? [];
      list.forEach((spec, index) => (items[kind] as Item<unknown>[]).push({ spec, origin: { file: name, path: [kind, index] } }));
    }
  }
  return { dir, files, items, problems };
}

/** A file a spec item names (code, tests), relative to the YAML file that names it. */
export const besideSpec = (specFile: string, relative: string): string => path.join(path.dirname(specFile), relative);
