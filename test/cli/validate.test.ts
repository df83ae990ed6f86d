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

  it("refuses a destination's secret written inline or from the environment, and a credential the spec does not declare; a declared one passes, beside a field from the environment", async () => {
    const spec = (apiKey: string, credentials = '') =>
      specFolder({ 'd.yaml': `${credentials}destinations:\n  - key: amp\n    type: AM\n    config:\n      apiKey: ${apiKey}\n` });
    const inline = spec('sk-live-inline');
    const run = await weir(['validate', inline]);
    expect(run.stderr).toContain(`${path.join(inline, 'd.yaml')}:5: destinations[0].config.apiKey: is a secret: write { credential: NAME }`);
    expect(run.stderr).not.toContain('sk-live-inline');
    expect(run.status).toBe(1);
    const fromEnv = spec('{ env: AMP_API_KEY }');
    expect((await weir(['validate', fromEnv])).stderr).toContain(
      `${path.join(fromEnv, 'd.yaml')}:5: destinations[0].config.apiKey: is a secret: write { credential: NAME } (declare a credential with value { env: AMP_API_KEY } and name it here)`,
    );
    const undeclared = spec('{ credential: AMP_API_KEY }');
    const missing = await weir(['validate', undeclared]);
    expect(missing.stderr).toContain(
      `${path.join(undeclared, 'd.yaml')}:5: destinations[0].config.apiKey: no credential has the key AMP_API_KEY: declare it under credentials`,
    );
    expect(missing.status).toBe(1);
    const notSecret = specFolder({
      'd.yaml':
        'credentials:\n  - key: URL\n    value: { env: URL }\ndestinations:\n  - key: amp\n    type: AM\n    config:\n      apiKey: { credential: URL }\n      baseUrl: { credential: URL }\n',
    });
    expect((await weir(['validate', notSecret])).stderr).toContain(
      `${path.join(notSecret, 'd.yaml')}:9: destinations[0].config.baseUrl: is not a secret: only apiKey, apiSecret may name a workspace credential`,
    );
    const declared = spec(
      '{ credential: AMP_API_KEY }\n      baseUrl: { env: AMP_PROXY_URL }',
      'credentials:\n  - key: AMP_API_KEY\n    value: { env: AMP_API_KEY }\n',
    );
    const valid = await weir(['validate', declared]);
    expect(valid.stderr).toBe('');
    expect(valid.stdout).toContain('valid (1 file, 2 resources)');
    expect(valid.status).toBe(0);
  });

  it("refuses a hash rule's salt credential or an S3 destination's key credential the spec does not declare", async () => {
    const dir = specFolder({
      ...GOOD,
      'pipeline.yaml': GOOD['pipeline.yaml'].replace(
        '          - { path: properties.test, op: equals, value: true }\n',
        '          - { path: properties.test, op: equals, value: true }\n      - { type: hash, paths: [context.traits.email], saltCredential: EMAIL_SALT }\n',
      ),
      's3.yaml':
        'destinations:\n  - key: lake\n    type: S3\n    config:\n      bucketName: lake\n      region: eu-west-1\n      accessKeyIdCredential: LAKE_KEY_ID\n',
    });
    const run = await weir(['validate', dir]);
    expect(run.stderr).toContain(`${path.join(dir, 'pipeline.yaml')}:14: connections[0].rules[1].saltCredential: no credential has the key EMAIL_SALT`);
    expect(run.stderr).toContain(`${path.join(dir, 's3.yaml')}:7: destinations[0].config.accessKeyIdCredential: no credential has the key LAKE_KEY_ID`);
    expect(run.status).toBe(1);
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
