import { AUTHORIZERS, ENDPOINT_FUNCTIONS, SCHEDULED_FUNCTIONS, STREAM_CONSUMERS } from '../shared/contract/functions';
import { DESTINATION_CODE } from '../shared/destination-code';

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
 * destination, kafkajs for the Kafka one, pg for the PostgreSQL one (each imported by that type's code, which a
 * function ships beside its bundle: DESTINATION_CODE_MODULES, and finds them in the same node_modules); Ajv (draft 2020-12) validates the events of sources held to a
 * tracking plan; re2js (RE2, 147 KB) matches the regular expressions users write (shared/domain/user-regex.ts).
 */
export const ON_DEMAND_MODULES = ['ioredis', 'kafkajs', 'pg', 'ajv/dist/2020.js', 're2js'] as const;
export type OnDemandModule = (typeof ON_DEMAND_MODULES)[number];

/**
 * Each destination type's code, as the registry `require`s it on the type's first use (shared/destination-code.ts):
 * bundled on its own into `destinations/<folder>/index.js` beside the handler's bundle, where that `require` finds it.
 * A function that delivers, tests or deletes carries the 25 types' definitions and loads only the code of the types
 * it sends to (each 2 to 13 KB; 93 KB for all 25, which every such function carried before).
 */
export const DESTINATION_CODE_MODULES = DESTINATION_CODE.map(({ folder }) => ({
  folder,
  /** The type's code, relative to the repository root. */
  entry: `shared/destinations/${folder}/index.ts`,
  /** What the registry's bundle `require`s. */
  path: `./destinations/${folder}`,
  /** Where its bundle goes, beside the handler's, without `.js` (esbuild's output name). */
  out: `destinations/${folder}/index`,
}));

/** What the handler's bundle leaves out: the runtime's modules, the on-demand ones and the destination types' code. */
export const EXTERNAL_MODULES = [...RUNTIME_MODULES, ...ON_DEMAND_MODULES, ...DESTINATION_CODE_MODULES.map((m) => m.path)];

/** The esbuild settings of every bundle, as NodejsFunction passes them (CommonJS, minified, a linked source map). */
export const BUNDLE_SETTINGS = { platform: 'node', format: 'cjs', target: ESBUILD_TARGET, minify: true, sourcemap: true } as const;

export interface FunctionBundle {
  /** Handler file, relative to the repository root. */
  entry: string;
  /** Largest the handler's bundle (index.js) may be, in KB (1,024 bytes); the budget test holds it. */
  budgetKb: number;
  /** On-demand packages its bundle (or a destination type's code it ships) may import, each shipped beside it. */
  onDemand?: readonly OnDemandModule[];
  /** Whether it ships every destination type's code beside its bundle (DESTINATION_CODE_MODULES), which its registry loads. */
  destinationCode?: boolean;
}

/**
 * Budgets: the size measured when set with about 5% of room, and never above 500 KB (ingestion: its 300 KB target).
 * A bundle that outgrows its budget fails the test, which names the modules that grew it; raising a budget is a
 * decision, taken in review, and no budget goes past those limits: a bundle that would is made smaller.
 */
const BUDGETS = {
  // The functions that deliver, test or delete (destinationCode) carry the registry and the 25 types'
  // definitions (shared/destinations/definitions.ts, 15 KB), not the types' code: each type's code is bundled on
  // its own beside the handler and loaded on its first use (DESTINATION_CODE_MODULES), which took 97 to 99 KB off
  // each of them (delivery 444.4 KB from 541.8, deliveryScheduler 446.9 from 544.4, replayRunner 437.4 from 534.8,
  // testInterface 395.1 from 492.8, regulationProcessor 375.5 from 474.4, deletionScheduler 344.0 from 442.8):
  // their budgets were set again from the measured size with 5% of room. A new type adds its definition here
  // (about 0.6 KB) and its code only beside the bundle. controlMeta, destinationDefinitions and the catalog carry the definitions alone.
  // endpoint functions
  controlMeta: { budgetKb: 340 },
  // The definitions route with its fields' display names, descriptions and examples (only it bundles those,
  // 283.5 KB measured); apart from controlMeta, which they took past its budget (342.0 KB; 327.2 without them).
  destinationDefinitions: { budgetKb: 298 },
  catalog: { budgetKb: 338, onDemand: ['re2js'] },
  transformations: { budgetKb: 370 },
  testInterface: { budgetKb: 415, onDemand: ['ioredis', 'kafkajs', 'ajv/dist/2020.js', 'pg', 're2js'], destinationCode: true },
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
  // A tracking plan's series and offending events (its hourly counters, its sources' live events), apart from
  // trackingPlans, which had no room for those reads: 303.3 KB measured.
  planViews: { budgetKb: 318 },
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
  regulationProcessor: { budgetKb: 395, onDemand: ['ioredis', 'kafkajs', 'pg'], destinationCode: true },
  delivery: { budgetKb: 467, onDemand: ['ioredis', 'kafkajs', 'pg', 're2js'], destinationCode: true },
  schemaCapture: { budgetKb: 340 },
  // scheduled functions
  deletionScheduler: { budgetKb: 362, onDemand: ['ioredis', 'kafkajs', 'pg'], destinationCode: true },
  deliveryScheduler: { budgetKb: 470, onDemand: ['ioredis', 'kafkajs', 'pg', 're2js'], destinationCode: true },
  replayRunner: { budgetKb: 460, onDemand: ['ioredis', 'kafkajs', 'pg', 're2js'], destinationCode: true },
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
