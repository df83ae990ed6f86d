import { DESTINATION_CODE } from '../destination-code';
import { DESTINATION_DEFINITIONS } from './definitions';
import { defineDestination, type DestinationCode, type DestinationType } from './types';

/**
 * The destination-type registry: every type Weir knows, with its code. The test interface, delivery and
 * deletion find their code in it. A type's code is loaded on its first use in a process (shared/destination-code.ts):
 * a function's bundle carries only the definitions (definitions.ts: name, configuration schema), which is all that
 * validating or listing configurations needs, and each type's code is bundled on its own beside it.
 */
const LOADERS: ReadonlyMap<string, () => DestinationCode> = new Map(DESTINATION_CODE.map((m) => [m.name, m.load]));
const loaded = new Map<string, DestinationType>();

/** The type of this name, its code loaded if this is its first use; undefined for a name Weir does not know. */
export function destinationType(name: string): DestinationType | undefined {
  const known = loaded.get(name);
  if (known) return known;
  const definition = DESTINATION_DEFINITIONS.get(name);
  const load = LOADERS.get(name);
  if (!definition || !load) return undefined;
  const type = defineDestination(definition, load());
  loaded.set(name, type);
  return type;
}

/** Every type, in the catalog's order, each with its code (which this loads: for tests and tools, not a function's hot path). */
export const destinationTypes = (): DestinationType[] => [...DESTINATION_DEFINITIONS.keys()].flatMap((name) => destinationType(name) ?? []);

/** What the code supports; each definition states the same (held by a unit test). */
export const supportsTest = (type: DestinationType) =>
  type.delivery === 'http' ? type.transform !== undefined : type.preview !== undefined && type.serverBatch !== undefined;
export const supportsDeletion = (type: DestinationType) => type.deleteUsers !== undefined;

/** The text a configuration that cannot build a request shows in a destination-transform result. */
export function invalidConfigText(type: DestinationType, problem: { field: string; message: string }): string {
  return type.invalidConfigText?.(problem.field) ?? `Invalid ${type.displayName} config: ${problem.field}: ${problem.message}`;
}
