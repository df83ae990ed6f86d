import { AUTHORIZERS, ENDPOINT_FUNCTIONS, SCHEDULED_FUNCTIONS, STREAM_CONSUMERS } from '../shared/contract/functions';

/**
 * How every function of Weir is bundled, and how large each bundle may be: read by the CDK stacks
 * (infra/stacks/weir-function.ts), by `npm run bench` and by the budget test (test/infra/bundle-budgets.test.ts),
 * which bundle with these same settings through esbuild's API (infra/bundle-build.ts).
 */

export const ESBUILD_TARGET = 'node24';

/** The Lambda Node.js runtime ships AWS SDK v3, so bundling it would only add size and cold-start time. */
export const RUNTIME_MODULES = ['@aws-sdk/*'];

/**
 * Packages a handler loads only on first use (a dynamic `import()`, for re2js a `require` then), bundled on
 * their own into `node_modules/<name>/index.js` beside the handler's bundle, where that import finds them: a
 * function that may use one carries its file, and its cold start does not load it. ioredis is for the Redis
 * destination, kafkajs for the Kafka one; Ajv (draft 2020-12) validates the events of sources held to a
 * tracking plan; re2js (RE2, 147 KB) matches the regular expressions users write (shared/domain/user-regex.ts).
 */
export const ON_DEMAND_MODULES = ['ioredis', 'kafkajs', 'pg', 'ajv/dist/2020.js', 're2js'] as const;
export type OnDemandModule = (typeof ON_DEMAND_MODULES)[number];

/** What the handler's bundle leaves out: the runtime's modules and the on-demand ones. */
export const EXTERNAL_MODULES = [...RUNTIME_MODULES, ...ON_DEMAND_MODULES];

/** The esbuild settings of every bundle, as NodejsFunction passes them (CommonJS, minified, a linked source map). */
export const BUNDLE_SETTINGS = { platform: 'node', format: 'cjs', target: ESBUILD_TARGET, minify: true, sourcemap: true } as const;

export interface FunctionBundle {
  /** Handler file, relative to the repository root. */
  entry: string;
  /** Largest the handler's bundle (index.js) may be, in KB (1,024 bytes); the budget test holds it. */
  budgetKb: number;
  /** On-demand packages its bundle may import, each shipped beside it. */
  onDemand?: readonly OnDemandModule[];
}

/**
 * Budgets: the size measured when set with about 5% of room (ingestion: its 300 KB target). A bundle that outgrows its budget
 * fails the test, which names the modules that grew it; raising a budget is a decision, taken in review.
 */
const BUDGETS = {
  // Each destination type adds about 4 KB to every function that carries the registry (those with on-demand
  // packages): their budgets were set again from the measured size with 5% of room as the catalog grew to 25 types.
  // controlMeta and the catalog only list and validate configurations: they carry the types' definitions
  // (shared/destinations/definitions.ts, 15 KB for the 25 types), not the registry (323 and 322 KB, from 438 and 436).
  // endpoint functions
  controlMeta: { budgetKb: 340 },
  catalog: { budgetKb: 338, onDemand: ['re2js'] },
  transformations: { budgetKb: 370 },
  testInterface: { budgetKb: 500, onDemand: ['ioredis', 'kafkajs', 'ajv/dist/2020.js', 'pg', 're2js'] },
  regulations: { budgetKb: 310 },
  replays: { budgetKb: 296 },
  alerts: { budgetKb: 310 },
  // Ingest shards (grouping at ingestion, reads across a source's partitions) added about 3 KB to the functions
  // that write or read stored events: ingest 323, monitoring 336 and deliveryAudit 329 KB, budgets set again.
  // The suppression index's stamp (regulation-repository.ts) and sketches' bases apart added about 1 KB to the
  // functions that read suppressions or capture schemas: monitoring 346.5 and schemaCapture 330.7 KB, set again.
  monitoring: { budgetKb: 356 },
  credentials: { budgetKb: 280 },
  eventSchemas: { budgetKb: 320 },
  trackingPlans: { budgetKb: 340, onDemand: ['ajv/dist/2020.js', 're2js'] },
  dataMeta: { budgetKb: 285 },
  // The schemas on ingestion's path (its routes', the catalog's, rules', credentials' and tracking plans') are
  // written with zod/mini, so its bundle carries no classic zod: 271 KB measured, from 331. The functions that
  // also carry classic zod grew 0.5 to 3 KB with mini's constructors beside it, within their budgets.
  ingest: { budgetKb: 300, onDemand: ['ajv/dist/2020.js', 're2js'] },
  sdkConfig: { budgetKb: 285 },
  governance: { budgetKb: 320 },
  parkedRecords: { budgetKb: 290 },
  // The merged reads across a source's partitions (across-partitions.ts in the ingest reads) added about 1 KB to
  // deliveryAudit: 338.0 KB, set again.
  deliveryAudit: { budgetKb: 345 },
  // authorizers
  account: { budgetKb: 255 },
  bearer: { budgetKb: 255 },
  admin: { budgetKb: 160 },
  // stream consumers
  regulationProcessor: { budgetKb: 489, onDemand: ['ioredis', 'kafkajs', 'pg'] },
  delivery: { budgetKb: 542, onDemand: ['ioredis', 'kafkajs', 'pg', 're2js'] },
  schemaCapture: { budgetKb: 340 },
  // scheduled functions
  deletionScheduler: { budgetKb: 454, onDemand: ['ioredis', 'kafkajs', 'pg'] },
  deliveryScheduler: { budgetKb: 546, onDemand: ['ioredis', 'kafkajs', 'pg', 're2js'] },
  replayRunner: { budgetKb: 537, onDemand: ['ioredis', 'kafkajs', 'pg', 're2js'] },
  alertEvaluator: { budgetKb: 282 },
  parkedRecordsScheduler: { budgetKb: 255 },
} satisfies Record<string, Omit<FunctionBundle, 'entry'>>;

const ENTRIES: Record<string, string> = Object.fromEntries(
  Object.entries({ ...ENDPOINT_FUNCTIONS, ...AUTHORIZERS, ...STREAM_CONSUMERS, ...SCHEDULED_FUNCTIONS }).map(([name, f]) => [name, f.entry]),
);

/** Every function of the contract (shared/contract/functions.ts) with its budget, by name. */
export const FUNCTION_BUNDLES: Record<string, FunctionBundle> = Object.fromEntries(
  Object.entries(ENTRIES).map(([name, entry]) => {
    const budget = (BUDGETS as Record<string, Omit<FunctionBundle, 'entry'>>)[name];
    if (!budget) throw new Error(`infra/bundles.ts: function ${name} has no bundle budget`);
    return [name, { entry, ...budget }];
  }),
);

/** The bundle settings of a handler file, by its entry (relative to the repository root). */
export function bundleOf(entry: string): FunctionBundle {
  const found = Object.values(FUNCTION_BUNDLES).find((b) => b.entry === entry);
  if (!found) throw new Error(`infra/bundles.ts: no function has the entry ${entry}`);
  return found;
}

/** The baseline of init-time ratios: the smallest handler, measured in the same run. */
export const BASELINE_FUNCTION = 'admin';
