import { stringify } from 'yaml';
import { diffLines } from '../console/src/diff';
import { shown, type Output } from './output';
import { SINGULAR, type Change, type FieldChange, type Plan } from './plan';
import { isCredentialRef } from './secrets';
import type { CredentialState } from './state';

/** A plan as weir prints it: a line per resource, the fields that change under it, code and specs as diffs. */
const SIGN = { create: '+', update: '~', delete: '-' } as const;
const CONTEXT = 2;

const asText = (value: unknown): string => (value === undefined ? '' : typeof value === 'string' ? value : stringify(value, { lineWidth: 0 }));

/** The changed lines of a text with two lines around each, `…` where unchanged lines are left out. */
export function textDiff(before: string, after: string): string[] {
  const lines = diffLines(before, after);
  const near = lines.map((_, i) => lines.slice(Math.max(0, i - CONTEXT), i + CONTEXT + 1).some((l) => l.kind !== 'same'));
  const out: string[] = [];
  lines.forEach((line, i) => {
    if (!near[i]) {
      if (out.at(-1) !== '…') out.push('…');
      return;
    }
    out.push(`${line.kind === 'added' ? '+' : line.kind === 'removed' ? '-' : ' '} ${line.text}`);
  });
  return out;
}

const NOT_SHOWN = '(value not shown)';

function fieldLines(f: FieldChange, env?: string): string[] {
  const from = env ? ` from ${env}` : '';
  if (f.rotate) return [`${f.field}: set again${from} (--rotate; value not shown)`];
  // A secret held inline becoming a reference to a credential (or back): the reference is shown, the value not.
  if (f.secret && (isCredentialRef(f.from) || isCredentialRef(f.to)))
    return [`${f.field}: ${isCredentialRef(f.from) ? shown(f.from) : NOT_SHOWN} → ${isCredentialRef(f.to) ? shown(f.to) : NOT_SHOWN}`];
  if (f.secret) return [`${f.field}: (secret, ${f.from === undefined ? 'set' : f.to === undefined ? 'removed' : 'changed'}${from}; value not shown)`];
  if (f.text) return [`${f.field}:`, ...textDiff(asText(f.from), asText(f.to)).map((l) => `  ${l}`)];
  return [`${f.field}: ${shown(f.from)} → ${shown(f.to)}${f.fixed ? ' (cannot change in place)' : ''}`];
}

export function printChange(out: Output, change: Change, prune: boolean): void {
  const tail = change.action === 'delete' && !prune ? ' (only with --prune)' : '';
  out.line(`${SIGN[change.action]} ${change.action} ${SINGULAR[change.kind]} ${change.key}${tail}`);
  const env = change.kind === 'credentials' ? (change.desired as CredentialState | undefined)?.env : undefined;
  if (change.kind === 'credentials' && change.action === 'create') out.line(`    value: set from ${env} (value not shown)`);
  for (const f of change.fields) for (const line of fieldLines(f, env)) out.line(`    ${line}`);
  for (const note of change.notes) out.line(`    ${note}`);
}

export function printPlan(out: Output, plan: Plan, prune: boolean): void {
  if (plan.changes.length === 0) {
    out.line('No changes: the workspace matches the files.');
    return;
  }
  const count = (action: Change['action']) => plan.changes.filter((c) => c.action === action).length;
  out.line(`Plan: ${count('create')} to create, ${count('update')} to update, ${count('delete')} to delete`);
  out.line();
  for (const change of plan.changes) printChange(out, change, prune);
}
