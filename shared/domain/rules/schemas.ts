// zod/mini, whose schemas are functions that bundle only what is used: the ingest function loads this module
// and stays within its 300 KB (infra/bundles.ts).
import * as z from 'zod/mini';
import { CREDENTIAL_KEY } from '../credentials/schemas';

/**
 * Rules of a connection (source → destination): an ordered list of declarative stages applied to each event
 * before the destination's transformation (docs/guides/tracking-plans-and-rules.md, "Rules per connection"). Parsed on save, so a stored list
 * always compiles (compile.ts).
 */
export const MAX_RULES = 50;
export const DEFAULT_SALT_CREDENTIAL = 'RULES_HASH_SALT';

const FORBIDDEN_SEGMENTS = new Set(['__proto__', 'prototype', 'constructor']);

/** A dot path into an event (`properties.email`, `context.traits.address.city`, `products.0.sku`). */
export const RulePath = z.string({ error: 'must be a dot path such as properties.email' }).check(
  z.minLength(1, 'must not be empty'),
  z.maxLength(200, 'must be at most 200 characters'),
  z.refine((p) => p.split('.').every((s) => s.length > 0), 'must be a dot path such as properties.email (no empty segment)'),
  z.refine((p) => p.split('.').every((s) => !FORBIDDEN_SEGMENTS.has(s)), 'must not name __proto__, prototype or constructor'),
);

/** Allow-properties prunes these objects of an event; its paths must lie inside one of them. */
export const PROPERTY_CONTAINERS = ['context.traits', 'properties', 'traits'] as const;
const AllowPath = RulePath.check(
  z.refine((p) => PROPERTY_CONTAINERS.some((c) => p.startsWith(`${c}.`)), 'must lie inside properties, traits or context.traits, such as properties.plan'),
);

const Paths = z.array(RulePath).check(z.minLength(1, 'must name at least one path'), z.maxLength(200, 'must name at most 200 paths'));
const Scalar = z.union([z.string().check(z.maxLength(1000)), z.number(), z.boolean(), z.null()], { error: 'must be a string, number, boolean or null' });
const not = { not: z.optional(z.boolean()).check(z.describe('true: the condition holds when the test fails')) };

/** A `matches` pattern: compiled by RE2 when a list is saved or tried (checkPatterns, rules.ts), so a stored one always reads back. */
const Pattern = z
  .string({ error: 'must be a regular expression' })
  .check(
    z.minLength(1, 'must not be empty'),
    z.maxLength(200, 'must be at most 200 characters'),
    z.describe('a regular expression in JavaScript syntax, matched in linear time (RE2): no backreferences or lookaround'),
  );

export const Condition = z.discriminatedUnion(
  'op',
  [
    z.strictObject({ path: RulePath, op: z.literal('equals'), value: Scalar, ...not }),
    z.strictObject({
      path: RulePath,
      op: z.literal('in'),
      values: z.array(Scalar).check(z.minLength(1, 'must list at least one value'), z.maxLength(1000)),
      ...not,
    }),
    z.strictObject({ path: RulePath, op: z.literal('exists'), ...not }),
    z.strictObject({ path: RulePath, op: z.literal('matches'), pattern: Pattern, ignoreCase: z.optional(z.boolean()), ...not }),
    z.strictObject({ path: RulePath, op: z.enum(['lt', 'lte', 'gt', 'gte']), value: z.number({ error: 'must be a number' }), ...not }),
  ],
  { error: 'op must be one of equals, in, exists, matches, lt, lte, gt, gte' },
);
export type Condition = z.infer<typeof Condition>;

const Name = z
  .optional(z.string().check(z.regex(/^[A-Za-z0-9 _.-]{1,64}$/, 'must be 1 to 64 letters, digits, spaces, _ . or -')))
  .check(z.describe('shown where the rule acted; defaults to its position and type, such as 2-drop-if'));

const ConsentId = z.string().check(z.minLength(1, 'must not be empty'), z.maxLength(200));

export const Rule = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('sample'),
      name: Name,
      fraction: z.number({ error: 'must be a number from 0 to 1' }).check(z.gte(0, 'must be at least 0'), z.lte(1, 'must be at most 1')),
    }),
    z.strictObject({
      type: z.literal('drop-if'),
      name: Name,
      match: z._default(z.enum(['all', 'any'], { error: 'must be all or any' }), 'all'),
      conditions: z.array(Condition).check(z.minLength(1, 'must list at least one condition'), z.maxLength(50, 'must list at most 50 conditions')),
    }),
    z.strictObject({
      type: z.literal('allow-properties'),
      name: Name,
      paths: z.array(AllowPath).check(z.minLength(1, 'must name at least one path'), z.maxLength(200, 'must name at most 200 paths')),
    }),
    z.strictObject({ type: z.literal('drop-properties'), name: Name, paths: Paths }),
    z.strictObject({
      type: z.literal('hash'),
      name: Name,
      paths: Paths,
      saltCredential: z
        ._default(
          z.string().check(z.regex(CREDENTIAL_KEY, 'must be a credential key: letters, digits and _, not starting with a digit')),
          DEFAULT_SALT_CREDENTIAL,
        )
        .check(z.describe('the workspace credential whose value salts the hash')),
    }),
    z.strictObject({ type: z.literal('truncate-ip'), name: Name }),
    z.strictObject({
      type: z.literal('consent'),
      name: Name,
      consentIds: z.array(ConsentId).check(z.minLength(1, 'must list at least one consent id'), z.maxLength(100)),
      resolutionStrategy: z.optional(z.enum(['and', 'or'], { error: 'must be and or or' })).check(z.describe("absent: the event's own, else and")),
      provider: z
        .optional(z.string().check(z.minLength(1), z.maxLength(64)))
        .check(z.describe('only events of this consent provider are judged (oneTrust, ketch, iubenda, custom…)')),
      undecided: z
        ._default(z.enum(['deliver', 'drop'], { error: 'must be deliver or drop' }), 'deliver')
        .check(z.describe('an event that neither allows nor denies the ids: delivered (as RudderStack does) or dropped')),
    }),
  ],
  { error: 'type must be one of sample, drop-if, allow-properties, drop-properties, hash, truncate-ip, consent' },
);
export type Rule = z.output<typeof Rule>;
export type RuleInput = z.input<typeof Rule>;

/** A list of rules as written (saved, created with a connection, dry-run); its patterns are checked by checkPatterns. */
export const Rules = z.array(Rule, { error: 'must be a list of rules' }).check(z.maxLength(MAX_RULES, `must hold at most ${MAX_RULES} rules`));

/** The body that replaces a connection's rules. */
export const RulesPut = z.strictObject({ rules: Rules });

/** The label a rule's stops are counted and shown under. */
export const ruleLabel = (rule: Pick<Rule, 'type' | 'name'>, index: number): string => rule.name ?? `${index + 1}-${rule.type}`;
