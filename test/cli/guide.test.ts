import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { deliveryRig, flowThrough } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { basic, bearer, call } from '../support/runtime';
import { removeSpecFolders, specFolder, weir, WEIR_BIN } from '../support/weir-cli';

/**
 * The guide's path as a new user takes it: an empty workspace, the guide's own files and its one command, then an
 * event sent with the source's write key reaches the webhook through the transformation. The files and the
 * command are read from the guide's code blocks, so the guide cannot drift from what works.
 */
jest.setTimeout(120_000);
const GUIDE = path.resolve(__dirname, '../../docs/guides/workspace-as-code.md');
const SECTION = '## From an empty workspace to a webhook, with files only';
const WEBHOOK_URL = 'https://webhook.site/your-id';
const TOKEN_PLACEHOLDER = '<the token npm start printed>';
const run = promisify(execFile);
const rig = deliveryRig();
afterAll(removeSpecFolders);

/** The section's files (each code block whose first line is a comment naming its path) and its shell command. */
function guideTour(): { files: Record<string, string>; command: string } {
  const guide = readFileSync(GUIDE, 'utf8');
  const section = guide.slice(guide.indexOf(SECTION), guide.indexOf('\n## ', guide.indexOf(SECTION) + SECTION.length));
  const files: Record<string, string> = {};
  for (const [, content, name] of section.matchAll(/```(?:yaml|js)\n((?:#|\/\/) (\S+)\n[\s\S]*?)```/g)) files[name!] = content!;
  const command = /```sh\n([\s\S]*?)```/.exec(section)?.[1]?.trim() ?? '';
  return { files, command };
}

describe('the guide, from an empty workspace to a webhook with files only', () => {
  it("weir apply of the guide's files connects a source to the webhook through the transformation; an event arrives transformed", async () => {
    const { files, command } = guideTour();
    expect(Object.keys(files).sort()).toEqual(['weir/pipeline.yaml', 'weir/tag.js']);
    expect(files['weir/pipeline.yaml']).toContain(WEBHOOK_URL);
    expect(command).toContain(TOKEN_PLACEHOLDER);
    expect(command).toContain('npx weir ');

    rig.server.on('/hook', json(200, {}));
    const ws = await rig.rt.newWorkspace('new user');
    const project = specFolder({ ...files, 'weir/pipeline.yaml': files['weir/pipeline.yaml']!.replace(WEBHOOK_URL, `${rig.server.url}/hook`) });
    // The command as written, in the folder that holds weir/: only the token is filled in, and `npx weir` is the
    // package's bin itself. WEIR_URL names this test's control plane (npm start's is the default).
    const script = command.replace(TOKEN_PLACEHOLDER, ws.token).replace('npx weir ', `'${process.execPath}' '${WEIR_BIN}' `);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], { cwd: project, env: { ...process.env, WEIR_URL: rig.rt.controlUrl } });
    for (const done of ['created source web', 'created destination hook', 'created transformation tag', 'created connection web → hook'])
      expect(stdout).toContain(done);

    const { sources } = (await call(rig.rt.controlUrl, 'GET', '/v2/sources', { auth: bearer(ws.token) })).body;
    expect(sources).toHaveLength(1);
    const event = { type: 'track', event: 'Signed Up', userId: 'u1', messageId: 'guide-1', properties: { plan: 'pro' } };
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/track', { auth: basic(sources[0].writeKey, ''), body: event })).status).toBe(200);
    await flowThrough(rig);
    const delivered = rig.server.received.filter((r) => r.path === '/hook').map((r) => r.json as Record<string, unknown>);
    expect(delivered).toEqual([expect.objectContaining({ event: 'Signed Up', messageId: 'guide-1', properties: { plan: 'pro', via: 'weir' } })]);

    // The same files again: nothing to do.
    const again = await weir(['plan', path.join(project, 'weir')], { WEIR_URL: rig.rt.controlUrl, WEIR_TOKEN: ws.token });
    expect(again.stdout).toContain('No changes');
    expect(again.status).toBe(0);
  });
});
