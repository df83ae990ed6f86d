import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkspaceCredentials } from '../../shared/domain/auth/workspaces';
import { shutdownSandbox } from '../../shared/sandbox';
import { basic, bearer, call, startTestRuntime, type TestRuntime } from '../support/runtime';
import { removeSpecFolders, specFolder, weir } from '../support/weir-cli';
import { waitFor } from '../support/wait';

jest.setTimeout(240_000);

const SECRET = 'sk-live-do-not-print-4711';
const TAG_LIB = 'export function tag(name) {\n  return `tag:${name}`;\n}\n';
const TAGGER = 'import { tag } from "tagLib";\nexport function transformEvent(event) {\n  return { ...event, tagged: tag(event.event) };\n}\n';

let rt: TestRuntime;
beforeAll(async () => (rt = await startTestRuntime()));
afterAll(async () => {
  await rt.stop();
  await shutdownSandbox();
  removeSpecFolders();
});

const api = (ws: WorkspaceCredentials) => async (method: string, route: string, body?: unknown) => {
  const answer = await call(rt.controlUrl, method, route, { auth: bearer(ws.token), body });
  if (answer.status >= 300) throw new Error(`${method} ${route}: ${answer.status} ${answer.text}`);
  return answer.body;
};
const envOf = (ws: WorkspaceCredentials, extra: Record<string, string> = {}) => ({
  WEIR_URL: rt.controlUrl,
  WEIR_TOKEN: ws.token,
  AMP_API_KEY: SECRET,
  ...extra,
});

/** Every file under a folder, by relative path, with its content. */
function filesOf(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const name of readdirSync(dir, { recursive: true, encoding: 'utf8' }).sort()) {
    const full = path.join(dir, name);
    try {
      files[name] = readFileSync(full, 'utf8');
    } catch {
      // a folder
    }
  }
  return files;
}

/** A workspace made by hand through the API, with one of each kind of resource. */
async function seed(ws: WorkspaceCredentials) {
  const a = api(ws);
  const { trackingPlan } = await a('POST', '/v2/tracking-plans', {
    name: 'shop',
    specs: [{ type: 'track', name: 'Order Completed', schema: { type: 'object', properties: { total: { type: 'number' } } } }],
  });
  const { source } = await a('POST', '/v2/sources', { name: 'web', type: 'javascript', ingestShards: 2, deduplicationWindowHours: 48 });
  await a('PUT', `/v2/sources/${source.id}/tracking-plan`, { planId: trackingPlan.id, mode: 'observe' });
  const { destination: hook } = await a('POST', '/v2/destinations', { name: 'hook', type: 'WEBHOOK', config: { webhookUrl: 'https://hooks.example.com/in' } });
  await a('POST', '/v2/destinations', { name: 'amp', type: 'AM', config: { apiKey: SECRET }, enabled: false });
  await a('POST', '/v2/connections', {
    sourceId: source.id,
    destinationId: hook.id,
    rules: [{ type: 'drop-if', conditions: [{ path: 'properties.test', op: 'equals', value: true }] }],
  });
  await a('POST', '/libraries', { name: 'tagLib', code: TAG_LIB, publish: true });
  await a('POST', '/transformations', { name: 'tagger', code: TAGGER, publish: true, destinationIds: [hook.id] });
  await a('POST', '/v2/alert-rules', {
    name: 'web quiet',
    condition: { kind: 'source-silent', sourceId: source.id, minutes: 30 },
    channel: { type: 'webhook', url: 'https://alerts.example.com/' },
  });
  return { source };
}

describe('weir export, plan and apply against the running service', () => {
  let staging: WorkspaceCredentials;
  let production: WorkspaceCredentials;
  let exported: string;

  beforeAll(async () => {
    staging = await rt.newWorkspace('staging');
    production = await rt.newWorkspace('production');
    await seed(staging);
    exported = specFolder();
    const run = await weir(['export', exported], envOf(staging));
    expect(run.stderr).toBe('');
    expect(run.status).toBe(0);
  });

  it("export writes no secret value: a destination's secret names a credential, whose value is an { env: NAME } reference", () => {
    const files = filesOf(exported);
    expect(Object.keys(files)).toEqual(
      expect.arrayContaining([
        'credentials.yaml',
        'sources.yaml',
        'destinations.yaml',
        'connections.yaml',
        'transformations.yaml',
        'transformations/tagger.js',
        'libraries.yaml',
        'libraries/taglib.js',
        'tracking-plans.yaml',
        'alert-rules.yaml',
      ]),
    );
    for (const content of Object.values(files)) expect(content).not.toContain(SECRET);
    expect(files['destinations.yaml']).toContain('apiKey:\n        credential: AMP_API_KEY');
    expect(files['credentials.yaml']).toContain('  - key: AMP_API_KEY\n    value:\n      env: AMP_API_KEY\n');
    expect(files['sources.yaml']!.startsWith('# yaml-language-server: $schema=')).toBe(true);
    expect(files['sources.yaml']).toContain('deduplicationWindowHours: 48');
  });

  it('export, apply to an empty workspace, export again: the same bytes; a second apply changes nothing', async () => {
    const applied = await weir(['apply', exported], envOf(production, { AMP_API_KEY: SECRET }));
    expect(applied.stderr).toBe('');
    expect(applied.status).toBe(0);
    expect(applied.stdout).toContain('created transformation tagger');
    const again = specFolder();
    expect((await weir(['export', again], envOf(production))).status).toBe(0);
    expect(filesOf(again)).toEqual(filesOf(exported));

    const plan = await weir(['plan', exported], envOf(production));
    expect(plan.stdout).toContain('No changes');
    expect(plan.status).toBe(0);
    const second = await weir(['apply', exported], envOf(production));
    expect(second.status).toBe(0);
    expect(second.stdout).toContain('No changes');
  });

  it("plan shows a changed config per field; a credential's value is set again only with --rotate, never shown; apply makes plan empty again", async () => {
    const dir = specFolder(filesOf(exported));
    const destinations = path.join(dir, 'destinations.yaml');
    writeFileSync(destinations, readFileSync(destinations, 'utf8').replace('https://hooks.example.com/in', 'https://hooks.example.com/v2'));
    const rotated = 'sk-live-rotated-0815';
    const env = envOf(production, { AMP_API_KEY: rotated });
    const plan = await weir(['plan', dir], env);
    expect(plan.stdout).toContain('~ update destination hook');
    expect(plan.stdout).toContain('config.webhookUrl: "https://hooks.example.com/in" → "https://hooks.example.com/v2"');
    expect(plan.stdout).not.toContain('credential AMP_API_KEY');
    expect(plan.status).toBe(2);
    const rotating = await weir(['plan', '--rotate', dir], env);
    expect(rotating.stdout).toContain('~ update credential AMP_API_KEY\n    value: set again from AMP_API_KEY (--rotate; value not shown)');
    for (const run of [plan, rotating]) {
      expect(run.stdout + run.stderr).not.toContain(rotated);
      expect(run.stdout + run.stderr).not.toContain(SECRET);
    }
    const applied = await weir(['apply', '--rotate', dir], env);
    expect(applied.stdout).toContain('updated credential AMP_API_KEY');
    expect(applied.status).toBe(0);
    expect((await weir(['plan', dir], env)).status).toBe(0);
    // The destination still names the credential; the value it is sent with is the credential's.
    const { destinations: live } = await api(production)('GET', '/v2/destinations');
    expect(live.find((d: { name: string }) => d.name === 'amp').config.apiKey).toEqual({ credential: 'AMP_API_KEY' });
  });

  it('the exported files against the workspace they came from: a secret held inline becomes a declared credential the destination names', async () => {
    const env = envOf(staging);
    const plan = await weir(['plan', exported], env);
    expect(plan.stdout).toContain('+ create credential AMP_API_KEY\n    value: set from AMP_API_KEY (value not shown)');
    expect(plan.stdout).toContain('~ update destination amp\n    config.apiKey: (value not shown) → {"credential":"AMP_API_KEY"}');
    expect(plan.stdout + plan.stderr).not.toContain(SECRET);
    expect(plan.status).toBe(2);
    expect((await weir(['apply', exported], env)).status).toBe(0);
    const { destinations } = await api(staging)('GET', '/v2/destinations');
    expect(destinations.find((d: { name: string }) => d.name === 'amp').config).toEqual({ apiKey: { credential: 'AMP_API_KEY' } });
    expect((await weir(['plan', exported], env)).status).toBe(0);
  });

  it('a changed transformation: plan runs its tests through the API and shows the code diff; failing tests stop apply', async () => {
    const dir = specFolder(filesOf(exported));
    writeFileSync(path.join(dir, 'transformations/tagger.js'), TAGGER.replace('tagged: tag(event.event)', 'tagged: tag(event.event), source: "weir"'));
    const tests = [
      {
        name: 'tags an order',
        input: [{ type: 'track', event: 'Order' }],
        expectedOutput: [{ type: 'track', event: 'Order', tagged: 'tag:Order', source: 'weir' }],
      },
    ];
    writeFileSync(path.join(dir, 'transformations/tagger.tests.json'), JSON.stringify(tests));
    const spec = path.join(dir, 'transformations.yaml');
    writeFileSync(
      spec,
      readFileSync(spec, 'utf8').replace('code: transformations/tagger.js', 'code: transformations/tagger.js\n    tests: transformations/tagger.tests.json'),
    );
    const env = envOf(production);
    const plan = await weir(['plan', dir], env);
    expect(plan.stdout).toContain('~ update transformation tagger');
    expect(plan.stdout).toContain('+   return { ...event, tagged: tag(event.event), source: "weir" };');
    expect(plan.stdout).toContain('-   return { ...event, tagged: tag(event.event) };');
    expect(plan.stdout).toContain('tests: 1 of 1 passed');
    expect(plan.status).toBe(2);

    writeFileSync(path.join(dir, 'transformations/tagger.tests.json'), JSON.stringify([{ ...tests[0], expectedOutput: [{ type: 'track' }] }]));
    const failing = await weir(['apply', dir], env);
    expect(failing.stdout).toContain('tests: 0 of 1 passed');
    expect(failing.stderr).toContain('failed at transformation tagger: its tests failed: not published');
    expect(failing.status).toBe(1);
    const { transformations } = await api(production)('GET', '/transformations');
    const published = await api(production)('GET', `/transformations/${transformations[0].id}/versions/${transformations[0].publishedVersionId}`);
    expect(published.code).toBe(TAGGER);

    writeFileSync(path.join(dir, 'transformations/tagger.tests.json'), JSON.stringify(tests));
    expect((await weir(['apply', dir], env)).status).toBe(0);
    expect((await weir(['plan', dir], env)).status).toBe(0);
  });

  it("a connection's changed rules: plan shows how many of the source's recent events each rule would stop", async () => {
    const { sources } = await api(production)('GET', '/v2/sources');
    const batch = [1, 2, 3].map((n) => ({ type: 'track', event: 'Order Completed', userId: `u${n}`, messageId: `m${n}`, properties: { total: n * 10 } }));
    expect((await call(rt.dataUrl, 'POST', '/v1/batch', { auth: basic(sources[0].writeKey, ''), body: { batch } })).status).toBe(200);
    const dir = specFolder(filesOf(exported));
    const file = path.join(dir, 'connections.yaml');
    const rule = '      - type: drop-if\n        conditions:\n          - { path: properties.total, op: gte, value: 20 }\n';
    writeFileSync(file, `connections:\n  - source: web\n    destination: hook\n    rules:\n${rule}`);
    const plan = await waitFor(
      'the dry run over all 3 events',
      () => weir(['plan', dir], envOf(production)),
      (p) => p.stdout.includes('would stop 2'),
      { timeoutMs: 20_000, everyMs: 0 },
    );
    expect(plan.stdout).toContain('~ update connection web → hook');
    expect(plan.stdout).toContain("dry run on the source's 3 most recent events: 1 would pass");
    expect(plan.stdout).toContain('rule 1-drop-if would stop 2');
    expect(plan.status).toBe(2);
  });

  it('a destination removed from the files is refused without --prune (nothing applied) and deleted with it', async () => {
    const dir = specFolder(filesOf(exported));
    const file = path.join(dir, 'destinations.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/ {2}- key: amp\n( {4,}.*\n)*/, ''));
    const env = envOf(production);
    const plan = await weir(['plan', dir], env);
    expect(plan.stdout).toContain('- delete destination amp (only with --prune)');
    expect(plan.status).toBe(2);
    const refused = await weir(['apply', dir], env);
    expect(refused.stderr).toContain('refused: destination amp is in the workspace but not in the files: run apply with --prune to delete it');
    expect(refused.status).toBe(1);
    expect((await api(production)('GET', '/v2/destinations')).destinations.map((d: { name: string }) => d.name).sort()).toEqual(['amp', 'hook']);
    const pruned = await weir(['apply', '--prune', dir], env);
    expect(pruned.stdout).toContain('deleted destination amp');
    expect(pruned.status).toBe(0);
    expect((await api(production)('GET', '/v2/destinations')).destinations.map((d: { name: string }) => d.name)).toEqual(['hook']);
  });

  it('a bad spec: apply names file, line and field and sends nothing', async () => {
    const empty = await rt.newWorkspace('empty');
    const dir = specFolder(filesOf(exported));
    const file = path.join(dir, 'sources.yaml');
    writeFileSync(file, readFileSync(file, 'utf8').replace('ingestShards: 2', 'ingestShards: 0'));
    const run = await weir(['apply', dir], envOf(empty));
    expect(run.stderr).toMatch(/sources\.yaml:\d+: sources\[0\]\.ingestShards: must be >= 1/);
    expect(run.status).toBe(1);
    expect((await api(empty)('GET', '/v2/sources')).sources).toEqual([]);
    expect((await api(empty)('GET', '/v2/tracking-plans')).trackingPlans).toEqual([]);
  });

  it("a source's de-duplication window: plan shows it change, apply sets it, and dropping it from the files puts back the default", async () => {
    const dir = specFolder(filesOf(exported));
    const file = path.join(dir, 'sources.yaml');
    const env = envOf(production);
    const window = async () => (await api(production)('GET', '/v2/sources')).sources[0].deduplicationWindowHours;
    writeFileSync(file, readFileSync(file, 'utf8').replace('deduplicationWindowHours: 48', 'deduplicationWindowHours: 72'));
    const plan = await weir(['plan', dir], env);
    expect(plan.stdout).toContain('~ update source web');
    expect(plan.stdout).toContain('deduplicationWindowHours: 48 → 72');
    expect(plan.status).toBe(2);
    expect((await weir(['apply', dir], env)).status).toBe(0);
    expect(await window()).toBe(72);
    expect((await weir(['plan', dir], env)).status).toBe(0);

    writeFileSync(file, readFileSync(file, 'utf8').replace(/ {4}deduplicationWindowHours: 72\n/, ''));
    const back = await weir(['apply', dir], env);
    expect(back.stdout).toContain('deduplicationWindowHours: 72 → 24');
    expect(back.status).toBe(0);
    expect(await window()).toBe(24);
    const again = specFolder();
    expect((await weir(['export', again], env)).status).toBe(0);
    expect(readFileSync(path.join(again, 'sources.yaml'), 'utf8')).not.toContain('deduplicationWindowHours');

    expect((await weir(['apply', exported], env)).status).toBe(0);
    expect(await window()).toBe(48);
  });

  it('a failure in the middle, for a reason outside the files, stops there and names what was applied; apply again on the same files completes it', async () => {
    const empty = await rt.newWorkspace('midway');
    const dir = specFolder(filesOf(exported));
    // Someone has started a transformation named tagger in the console, under another key, and not published it:
    // not part of the plan, but the API takes each transformation name once, so creating tagger is refused.
    const draft = await api(empty)('POST', '/transformations?publish=false', {
      name: 'tagger',
      code: 'export function transformEvent(event) {\n  return event;\n}\n',
      externalId: 'console-draft',
    });
    const failed = await weir(['apply', dir], envOf(empty));
    expect(failed.stderr).toContain('failed at transformation tagger: POST /transformations: a transformation named tagger already exists');
    expect(failed.stderr).toMatch(/applied before it: .*created source web.*created destination hook/);
    expect(failed.stdout).not.toContain('created connection');
    expect(failed.status).toBe(1);

    await api(empty)('DELETE', `/transformations/${draft.id}`);
    const plan = await weir(['plan', dir], envOf(empty));
    expect(plan.stdout).toContain('Plan: 3 to create, 1 to update, 0 to delete');
    const finished = await weir(['apply', dir], envOf(empty));
    for (const done of ['created transformation tagger', 'created connection web → hook', 'created alert rule web quiet'])
      expect(finished.stdout).toContain(done);
    expect(finished.status).toBe(0);
    expect((await weir(['plan', dir], envOf(empty))).status).toBe(0);
    expect(filesOf(dir)).toEqual(filesOf(exported));
  });
});
