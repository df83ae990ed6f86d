import path from 'node:path';
import { removeSpecFolders, specFolder, weir } from '../support/weir-cli';

const GOOD = {
  'sources.yaml': 'sources:\n  - key: web\n    type: javascript\n',
  'pipeline.yaml': [
    'destinations:',
    '  - key: hook',
    '    type: WEBHOOK',
    '    config:',
    '      webhookUrl: https://example.com/in',
    '    transformation: clean',
    'connections:',
    '  - source: web',
    '    destination: hook',
    '    rules:',
    '      - type: drop-if',
    '        conditions:',
    '          - { path: properties.test, op: equals, value: true }',
    'transformations:',
    '  - key: clean',
    '    code: code/clean.js',
    '',
  ].join('\n'),
  'code/clean.js': 'export function transformEvent(event) {\n  return event;\n}\n',
};

afterAll(removeSpecFolders);

describe('weir validate (offline)', () => {
  it('accepts a spec spread over files and exits 0', async () => {
    const dir = specFolder(GOOD);
    const run = await weir(['validate', dir]);
    expect(run.stderr).toBe('');
    expect(run.stdout).toContain('valid (2 files, 4 resources)');
    expect(run.status).toBe(0);
  });

  it('names the file, line and field of every problem and exits 1', async () => {
    const dir = specFolder({
      ...GOOD,
      'sources.yaml': 'sources:\n  - key: web\n    inboundLimit: 0\n',
    });
    const run = await weir(['validate', dir]);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${path.join(dir, 'sources.yaml')}:3: sources[0].inboundLimit: must be >= 1`);
    expect(run.stderr).toContain('nothing was sent to the workspace');
  });

  it("checks a destination's config against its type's definition, a rule's fields, references and a plan's JSON Schema", async () => {
    const dir = specFolder({
      ...GOOD,
      'pipeline.yaml': GOOD['pipeline.yaml']
        .replace('https://example.com/in', 'not-a-url')
        .replace('op: equals, value: true', 'op: near, value: true')
        .replace('transformation: clean', 'transformation: missing'),
      'plans.yaml': [
        'trackingPlans:',
        '  - key: shop',
        '    specs:',
        '      - type: track',
        '        name: Order Completed',
        '        schema: { type: object, properties: { total: { type: 12 } } }',
        '',
      ].join('\n'),
    });
    const run = await weir(['validate', dir]);
    const pipeline = path.join(dir, 'pipeline.yaml');
    expect(run.stderr).toContain(`${pipeline}:5: destinations[0].config.webhookUrl: webhookUrl must be an http(s) URL`);
    expect(run.stderr).toContain(`${pipeline}:6: destinations[0].transformation: no transformation has the key missing`);
    expect(run.stderr).toContain(`${pipeline}:13: connections[0].rules[0].conditions[0].op: op must be one of equals, in, exists, matches, lt, lte, gt, gte`);
    expect(run.stderr).toMatch(new RegExp(`plans\\.yaml:6: trackingPlans\\[0\\]\\.specs\\[0\\]\\.schema: not a valid JSON Schema`));
    expect(run.status).toBe(1);
  });

  it('refuses a secret written inline: it must be { env: NAME }', async () => {
    const dir = specFolder({ 'd.yaml': 'destinations:\n  - key: amp\n    type: AM\n    config:\n      apiKey: sk-live-inline\n' });
    const run = await weir(['validate', dir]);
    expect(run.stderr).toContain(`${path.join(dir, 'd.yaml')}:5: destinations[0].config.apiKey: is a secret: write { env: NAME }`);
    expect(run.status).toBe(1);
    const fixed = specFolder({ 'd.yaml': 'destinations:\n  - key: amp\n    type: AM\n    config:\n      apiKey: { env: AMP_API_KEY }\n' });
    expect((await weir(['validate', fixed])).status).toBe(0);
  });

  it("checks a source's de-duplication window: whole hours from 1 to 168", async () => {
    const window = (hours: string) => specFolder({ 's.yaml': `sources:\n  - key: web\n    deduplicationWindowHours: ${hours}\n` });
    const tooLong = window('169');
    const run = await weir(['validate', tooLong]);
    expect(run.stderr).toContain(`${path.join(tooLong, 's.yaml')}:3: sources[0].deduplicationWindowHours: must be <= 168`);
    expect(run.status).toBe(1);
    expect((await weir(['validate', window('0')])).stderr).toContain('sources[0].deduplicationWindowHours: must be >= 1');
    expect((await weir(['validate', window('1.5')])).stderr).toContain('sources[0].deduplicationWindowHours: must be integer');
    expect((await weir(['validate', window('168')])).status).toBe(0);
  });

  it('refuses unknown fields and YAML errors with their line', async () => {
    const dir = specFolder({ 'a.yaml': 'sources:\n  - key: web\n    typo: 1\n', 'b.yaml': 'sources: [\n' });
    const run = await weir(['validate', dir]);
    expect(run.stderr).toContain(`${path.join(dir, 'a.yaml')}:3: sources[0].typo: unknown field typo`);
    expect(run.stderr).toMatch(/b\.yaml:\d+: \(yaml\): /);
    expect(run.status).toBe(1);
  });

  it('refuses the same key twice', async () => {
    const dir = specFolder({ 'a.yaml': 'sources:\n  - key: web\n', 'b.yaml': 'sources:\n  - key: web\n' });
    const run = await weir(['validate', dir]);
    expect(run.stderr).toMatch(/b\.yaml:2: sources\[0\]\.key: the source web is also defined at .*a\.yaml/);
    expect(run.status).toBe(1);
  });
});
