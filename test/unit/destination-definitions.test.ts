import path from 'node:path';
import { build } from 'esbuild';
import { DESTINATION_DEFINITIONS, listDestinationDefinitions } from '../../shared/destinations/definitions';
import { destinationTypes, supportsDeletion, supportsTest } from '../../shared/destinations/registry';

// Each destination type is defined once (its definition.ts) and its code (index.ts) is built from that definition:
// the catalog and GET /destination-definitions read the definitions, delivery and the test interface the code.

const REPO_ROOT = path.resolve(__dirname, '../..');

describe('destination definitions and the registry', () => {
  const definitions = [...DESTINATION_DEFINITIONS.values()];
  const types = destinationTypes();

  it('list the same 25 types in the same order', () => {
    expect(definitions).toHaveLength(25);
    expect(definitions.map((d) => d.name)).toEqual(types.map((t) => t.name));
  });

  it.each(types.map((type) => [type.name, type] as const))('%s: its code is built from its definition', (name, type) => {
    const definition = DESTINATION_DEFINITIONS.get(name)!;
    expect(type.displayName).toBe(definition.displayName);
    expect(type.config).toBe(definition.config);
  });

  it.each(types.map((type) => [type.name, type] as const))('%s: its definition states what its code supports', (name, type) => {
    const definition = DESTINATION_DEFINITIONS.get(name)!;
    expect({ supportsTest: definition.supportsTest, supportsDeletion: definition.supportsDeletion }).toEqual({
      supportsTest: supportsTest(type),
      supportsDeletion: supportsDeletion(type),
    });
  });

  it('GET /destination-definitions lists the definitions, in their order', () => {
    expect(
      listDestinationDefinitions().map(({ name, displayName, supportsTest: test, supportsDeletion: deletion }) => [name, displayName, test, deletion]),
    ).toEqual(definitions.map((d) => [d.name, d.displayName, d.supportsTest, d.supportsDeletion]));
  });
});

describe('the definitions module', () => {
  it('carries no type code: nothing but zod from node_modules, no index.ts, client or registry of a type', async () => {
    const { metafile } = await build({
      entryPoints: [path.join(REPO_ROOT, 'shared/destinations/definitions.ts')],
      bundle: true,
      write: false,
      platform: 'node',
      format: 'cjs',
      metafile: true,
      absWorkingDir: REPO_ROOT,
      logLevel: 'error',
    });
    const inputs = Object.keys(metafile.inputs);
    const packages = new Set(inputs.map((input) => /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1]).filter(Boolean));
    expect([...packages]).toEqual(['zod']);
    const destinationFiles = inputs.filter((input) => input.startsWith('shared/destinations/'));
    // A type's endpoints.ts holds constants its definition and its code both name (Braze's instances, PostHog's host).
    const light = /^shared\/destinations\/((?:[\w-]+\/(?:definition|endpoints))|definitions|config-schema|credential-refs|types)\.ts$/;
    expect(destinationFiles.filter((file) => !light.test(file))).toEqual([]);
    expect(destinationFiles.filter((file) => file.endsWith('/definition.ts'))).toHaveLength(25);
  });
});
