import { readFileSync } from 'node:fs';
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

describe('the fields GET /destination-definitions lists, as forms show them', () => {
  const fields = listDestinationDefinitions().flatMap((d) => d.fields.map((field) => [`${d.name}.${field.name}`, field] as const));

  it.each(fields)('%s has a display name (not its key) and a one-line description', (_, field) => {
    expect(field.displayName.trim()).not.toBe('');
    expect(field.displayName).not.toBe(field.name);
    expect(field.description.trim()).not.toBe('');
    expect(field.description).not.toMatch(/\n/);
  });

  it.each(fields.filter(([, field]) => field.type === 'pairs'))('%s names both sides of its pairs, each with an example', (_, field) => {
    for (const side of [field.columns?.from, field.columns?.to]) {
      expect(side?.displayName).not.toMatch(/^(from|to)?$/);
      expect(side?.example).toBeTruthy();
    }
  });

  it('gives the webhook URL its name, its description and an example', () => {
    const webhook = listDestinationDefinitions().find((d) => d.name === 'WEBHOOK')!;
    expect(webhook.fields.find((f) => f.name === 'webhookUrl')).toMatchObject({
      displayName: 'Webhook URL',
      description: 'Where events are sent (http or https)',
      example: 'https://example.com/weir/events',
      required: true,
    });
    expect(webhook.fields.find((f) => f.name === 'headers')?.columns).toEqual({
      from: { displayName: 'Header name', example: 'x-api-key' },
      to: { displayName: 'Value', example: 'my-key' },
    });
  });

  it.each(listDestinationDefinitions().map((d) => [d.name, d] as const))(
    "%s: its reference page's configuration table lists its fields in the definition's words",
    (name, definition) => {
      const page = readFileSync(path.join(REPO_ROOT, 'docs/reference/destinations', `${name.toLowerCase().replace(/_/g, '-')}.md`), 'utf8');
      const rows = [...page.matchAll(/^\| `(\w+)`\s*\|[^|]*\|[^|]*\|\s*(.*?)\s*\|$/gm)].map((m) => [m[1], m[2]]);
      expect(rows).toEqual(definition.fields.map((f) => [f.name, f.description]));
    },
  );
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
