import type { RouteInput } from '../../shared/contract/client-types';

/** A connection's rules as the API takes them. */
export type RuleInput = RouteInput<'PUT /v2/connections/{id}/rules'>['body']['rules'][number];
type ConditionInput = Extract<RuleInput, { type: 'drop-if' }>['conditions'][number];

export const RULE_TYPES = ['sample', 'drop-if', 'allow-properties', 'drop-properties', 'hash', 'truncate-ip', 'consent'] as const;
export type RuleType = (typeof RULE_TYPES)[number];
export const OPS = ['equals', 'in', 'exists', 'matches', 'lt', 'lte', 'gt', 'gte'] as const;
export type Op = (typeof OPS)[number];

/** A condition as the editor holds it: every field as typed. */
export interface DraftCondition {
  path: string;
  op: Op;
  value: string;
  not: boolean;
}

/** A rule as the editor holds it: the fields of every type, as typed; only its type's are sent. */
export interface DraftRule {
  type: RuleType;
  name: string;
  fraction: string;
  match: 'all' | 'any';
  conditions: DraftCondition[];
  paths: string;
  saltCredential: string;
  consentIds: string;
  resolutionStrategy: '' | 'and' | 'or';
  provider: string;
  undecided: 'deliver' | 'drop';
}

export const newCondition = (): DraftCondition => ({ path: '', op: 'equals', value: '', not: false });

export const newDraft = (type: RuleType): DraftRule => ({
  type,
  name: '',
  fraction: '0.1',
  match: 'all',
  conditions: [newCondition()],
  paths: '',
  saltCredential: 'RULES_HASH_SALT',
  consentIds: '',
  resolutionStrategy: '',
  provider: '',
  undecided: 'deliver',
});

const list = (text: string) =>
  text
    .split(/[,\n]/)
    .map((s) => s.trim())
    .filter((s) => s !== '');

/** A value box: JSON scalars (42, true, null, "42") as such, anything else as text. */
function scalarOf(text: string): string | number | boolean | null {
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || ['string', 'number', 'boolean'].includes(typeof value)) return value as string | number | boolean | null;
  } catch {
    // plain text
  }
  return text;
}

function conditionOf(c: DraftCondition): ConditionInput {
  const base = { path: c.path.trim(), ...(c.not && { not: true }) };
  switch (c.op) {
    case 'equals':
      return { ...base, op: c.op, value: scalarOf(c.value) };
    case 'in':
      return { ...base, op: c.op, values: list(c.value).map(scalarOf) };
    case 'exists':
      return { ...base, op: c.op };
    case 'matches':
      return { ...base, op: c.op, pattern: c.value };
    default:
      // A number that is not one is sent as typed, for the API to name.
      return { ...base, op: c.op, value: (c.value.trim() !== '' && Number.isFinite(Number(c.value)) ? Number(c.value) : c.value) as number };
  }
}

/** What is sent for a draft: only its type's fields. */
export function ruleOf(d: DraftRule): RuleInput {
  const name = d.name.trim() === '' ? {} : { name: d.name.trim() };
  switch (d.type) {
    case 'sample':
      return { type: d.type, ...name, fraction: (d.fraction.trim() === '' ? d.fraction : Number(d.fraction)) as number };
    case 'drop-if':
      return { type: d.type, ...name, match: d.match, conditions: d.conditions.map(conditionOf) };
    case 'allow-properties':
    case 'drop-properties':
      return { type: d.type, ...name, paths: list(d.paths) };
    case 'hash':
      return { type: d.type, ...name, paths: list(d.paths), saltCredential: d.saltCredential.trim() };
    case 'truncate-ip':
      return { type: d.type, ...name };
    case 'consent':
      return {
        type: d.type,
        ...name,
        consentIds: list(d.consentIds),
        ...(d.resolutionStrategy !== '' && { resolutionStrategy: d.resolutionStrategy }),
        ...(d.provider.trim() !== '' && { provider: d.provider.trim() }),
        undecided: d.undecided,
      };
  }
}

const textOf = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** A stored rule as the editor shows it. */
export function draftOf(rule: RuleInput): DraftRule {
  const d = newDraft(rule.type);
  d.name = rule.name ?? '';
  if (rule.type === 'sample') d.fraction = String(rule.fraction);
  if (rule.type === 'drop-if') {
    d.match = rule.match ?? 'all';
    d.conditions = rule.conditions.map((c) => ({
      path: c.path,
      op: c.op,
      not: c.not === true,
      value: c.op === 'in' ? c.values.map(textOf).join(', ') : c.op === 'matches' ? c.pattern : c.op === 'exists' ? '' : textOf(c.value),
    }));
  }
  if (rule.type === 'allow-properties' || rule.type === 'drop-properties' || rule.type === 'hash') d.paths = rule.paths.join(', ');
  if (rule.type === 'hash') d.saltCredential = rule.saltCredential ?? 'RULES_HASH_SALT';
  if (rule.type === 'consent') {
    d.consentIds = rule.consentIds.join(', ');
    d.resolutionStrategy = rule.resolutionStrategy ?? '';
    d.provider = rule.provider ?? '';
    d.undecided = rule.undecided ?? 'deliver';
  }
  return d;
}
