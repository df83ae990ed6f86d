import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { withoutCode } from './markdown-links';

/**
 * What the configuration test reads: the environment variables the code reads, the configuration table, and the
 * defaults other documents state.
 */

/** Reads in code: `process.env.X`, `env.X`, `env['X']` (not an assignment), and Weir's own names held as constants. */
const READS = [
  /\benv\??\.([A-Z][A-Z0-9_]*)\b(?!\s*=(?!=))/g,
  /\benv\[\s*['"`]([A-Z][A-Z0-9_]*)['"`]\s*\]/g,
  // Weir's own variables are often named by a constant (`process.env[OUTBOUND_ALLOWLIST_ENV]`) or a helper's
  // argument (`number('WEIR_DELIVERY_LEASE_MS', …)`): every literal of the form is the name of one.
  /['"`](WEIR_[A-Z0-9_]+)['"`]/g,
  // The local runtime's ports, read through `port('PORT', …)` and the planes' `portVariable`.
  /\bport(?:Variable)?\s*[:(]\s*['"]([A-Z][A-Z0-9_]*)['"]/g,
];

export function variablesReadIn(dirs: string[]): Map<string, string> {
  const found = new Map<string, string>();
  for (const dir of dirs) {
    for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' })) {
      if (!/\.tsx?$/.test(name) || name.includes('node_modules')) continue;
      const file = path.join(dir, name);
      const text = readFileSync(file, 'utf8');
      for (const pattern of READS) for (const match of text.matchAll(pattern)) if (!found.has(match[1]!)) found.set(match[1]!, file);
    }
  }
  return found;
}

/** The rows of a document's tables whose first cell names variables: each variable and its default cell. */
export function tableDefaults(text: string): Map<string, string> {
  const defaults = new Map<string, string>();
  for (const line of text.split('\n')) {
    const cells = /^\|(.*)\|\s*$/
      .exec(line)?.[1]
      ?.split('|')
      .map((cell) => cell.trim());
    if (!cells || cells.length < 3) continue;
    for (const name of cells[0]!.matchAll(/`([A-Z][A-Z0-9_]*)`/g)) defaults.set(name[1]!, cells[1]!);
  }
  return defaults;
}

const UNITS: Record<string, number> = { ms: 1, s: 1000, min: 60_000, minutes: 60_000, h: 3_600_000, hours: 3_600_000 };

/** A stated value in the variable's own unit (`_MS` in ms; others as written), or undefined when none. */
export function valueOf(name: string, stated: string): number | undefined {
  const match = /^(\d[\d,]*(?:\.\d+)?)\s*(ms|s|min|minutes|h|hours|days?)?\b/.exec(stated.trim());
  if (!match) return undefined;
  const number = Number(match[1]!.replaceAll(',', ''));
  const unit = match[2];
  if (name.endsWith('_MS') && unit && UNITS[unit] !== undefined) return number * UNITS[unit]!;
  return number;
}

/** Every number a table's default cell gives (`45000 (3000 locally)`: both), in the variable's unit. */
export function tableValues(name: string, cell: string): number[] {
  return [...cell.matchAll(/\d[\d,]*(?:\.\d+)?/g)].map((m) => valueOf(name, m[0]) as number);
}

export interface StatedDefault {
  file: string;
  line: number;
  variable: string;
  value: number;
  text: string;
}

/**
 * Defaults a document states beside a variable, in the forms the docs use: "`VAR` (10 s)", "`VAR`, 10 s",
 * "`VAR`, default 60000", "`VAR` (default 7)", and "10 s (`VAR`)" / "10 s, `VAR`".
 */
export function statedDefaults(file: string): StatedDefault[] {
  const stated: StatedDefault[] = [];
  const lines = withoutFences(readFileSync(file, 'utf8')).split('\n');
  const text = lines.join(' ');
  const lineOf = (index: number) => countBreaks(lines, index) + 1;
  const VALUE = String.raw`(\d[\d,]*(?:\.\d+)?\s*(?:ms|s|min|minutes|h|hours|days?)?)(?![\w.])`;
  const after = new RegExp(String.raw`\x60([A-Z][A-Z0-9_]+)\x60(?:\s*\(|,)\s*(?:default\s+)?` + VALUE, 'g');
  const before = new RegExp(VALUE + String.raw`\s*(?:\(|,|;)\s*\x60([A-Z][A-Z0-9_]+)\x60\s*\)`, 'g');
  for (const match of text.matchAll(after)) push(match[1]!, match[2]!, match.index, match[0]);
  for (const match of text.matchAll(before)) push(match[2]!, match[1]!, match.index, match[0]);
  return stated;

  function push(variable: string, raw: string, index: number, whole: string) {
    const value = valueOf(variable, raw);
    if (value !== undefined) stated.push({ file, line: lineOf(index), variable, value, text: whole });
  }
}

/** Fenced blocks are examples, not statements, and go; inline code stays (variables are written as code). */
function withoutFences(text: string): string {
  const mark = '\u2063'; // an invisible separator, never in the docs: the variables' backticks, kept from withoutCode
  return withoutCode(text.replace(/`([A-Z][A-Z0-9_]+)`/g, `${mark}$1${mark}`)).replaceAll(mark, '`');
}

/** The line (1-based) of a character index in the lines joined with single spaces. */
function countBreaks(lines: string[], index: number): number {
  let position = 0;
  for (let i = 0; i < lines.length; i++) {
    position += lines[i]!.length + 1;
    if (position > index) return i;
  }
  return lines.length - 1;
}
