import { TRACK, testInterfaceRig, webhookRequest } from '../support/test-interface';

/**
 * The test interface's testDestination over HTTP (SPEC §4.C and §7), against a local server playing the
 * destination: the stages it runs (transformation, request, send), the ones a request sets false or leaves
 * out, and a disabled destination run only when forced.
 */
const { rig, workspace } = testInterfaceRig();

describe('testDestination', () => {
  it('runs every stage when stage is omitted: no transformation connected is reported and processing goes on', async () => {
    const w = await workspace();
    const d = await w.destination();
    const answer = await w.testDestination(d.id, { message: TRACK });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      destinationId: d.id,
      destination: 'WEBHOOK',
      destinationName: 'Hook',
      data: [
        {
          user_transformed_payload: { error: 'Transformation VersionID not found' },
          dest_transformed_payload: [webhookRequest(`${rig.server.url}/hook`, TRACK)],
          destination_response: [{ ok: true }],
          destination_response_status: [200],
        },
      ],
    });
    expect(rig.server.received).toHaveLength(1);
    expect(rig.server.received[0]).toMatchObject({ method: 'POST', path: '/hook', json: TRACK });
    expect(rig.server.received[0]!.headers['user-agent']).toBe('Weir');
    expect(rig.server.received[0]!.headers['content-type']).toBe('application/json');
  });

  it("runs the destination's published transformation and sends what it made", async () => {
    const w = await workspace();
    const d = await w.destination();
    await w.transformation('export function transformEvent(event) { return { ...event, tagged: true }; }', [d.id]);
    const answer = await w.testDestination(d.id, {
      message: TRACK,
      stage: { user_transform: true, dest_transform: true, send_to_destination: true },
    });
    const tagged = { ...TRACK, tagged: true };
    expect(answer.body.data).toEqual([
      {
        user_transformed_payload: tagged,
        dest_transformed_payload: [webhookRequest(`${rig.server.url}/hook`, tagged)],
        destination_response: [{ ok: true }],
        destination_response_status: [200],
      },
    ]);
    expect(rig.server.received.map((r) => r.json)).toEqual([tagged]);
  });

  it('reports a throwing transformation and aborts the later stages with the exact texts, sending nothing', async () => {
    const w = await workspace();
    const d = await w.destination();
    await w.transformation('export function transformEvent(event) { if (event.messageId === "msg-1") throw new Error("no tracks"); return event; }', [d.id]);
    const answer = await w.testDestination(d.id, { message: TRACK });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toHaveLength(1);
    const [entry] = answer.body.data;
    expect(entry.user_transformed_payload.error).toMatch(/^Error: no tracks/);
    expect(entry.dest_transformed_payload).toEqual({ error: 'error encountered in user_transformation stage. Aborting.' });
    expect(entry.destination_response).toEqual({ error: 'error encountered in dest_transformation stage. Aborting.' });
    expect(entry.destination_response_status).toBeUndefined();
    expect(rig.server.received).toEqual([]);
  });

  it('shows a dropped event as filtered, and a fanned-out event as one data entry per output', async () => {
    const w = await workspace();
    const dropped = await w.destination();
    await w.transformation('export function transformEvent(event) { return null; }', [dropped.id]);
    const filtered = await w.testDestination(dropped.id, { message: TRACK });
    expect(filtered.body.data).toEqual([{ user_transformed_payload: { filtered: true, message: 'the transformation returned no event for this message' } }]);
    expect(rig.server.received).toEqual([]);

    const fanned = await w.destination();
    await w.transformation('export function transformEvent(event) { return [{ ...event, n: 1 }, { ...event, n: 2 }]; }', [fanned.id]);
    const answer = await w.testDestination(fanned.id, { message: TRACK });
    expect(answer.body.data.map((e: { user_transformed_payload: { n: number } }) => e.user_transformed_payload.n)).toEqual([1, 2]);
    expect(answer.body.data.map((e: { destination_response_status: number[] }) => e.destination_response_status)).toEqual([[200], [200]]);
    expect(rig.server.received.map((r) => (r.json as { n: number }).n).sort()).toEqual([1, 2]);
  });

  it('skips the stages set false; a stage left out of a given stage object does not run', async () => {
    const w = await workspace();
    const d = await w.destination();
    const onlyDest = await w.testDestination(d.id, { message: TRACK, stage: { dest_transform: true } });
    expect(onlyDest.body.data).toEqual([{ dest_transformed_payload: [webhookRequest(`${rig.server.url}/hook`, TRACK)] }]);
    const onlyUser = await w.testDestination(d.id, { message: TRACK, stage: { user_transform: true, dest_transform: false } });
    expect(onlyUser.body.data).toEqual([{ user_transformed_payload: { error: 'Transformation VersionID not found' } }]);
    expect(rig.server.received).toEqual([]);
  });

  it('skips send_to_destination without dest_transform, as the reference does: nothing sent, no dest_transformed_payload', async () => {
    const w = await workspace();
    const d = await w.destination();
    const answer = await w.testDestination(d.id, { message: TRACK, stage: { user_transform: true, send_to_destination: true } });
    expect(answer.status).toBe(200);
    expect(answer.body.data).toEqual([{ user_transformed_payload: { error: 'Transformation VersionID not found' } }]);
    const alone = await w.testDestination(d.id, { message: TRACK, stage: { send_to_destination: true } });
    expect([alone.status, alone.body.data]).toEqual([200, [{}]]);
    expect(rig.server.received).toEqual([]);
  });

  it('answers the disabled-destination object unless force=true', async () => {
    const w = await workspace();
    const d = await w.destination(undefined, { enabled: false });
    const refused = await w.testDestination(d.id, { message: TRACK });
    expect(refused.status).toBe(200);
    expect(refused.body).toEqual({ destinationId: d.id, destinationName: 'Hook', error: `Destination with id ${d.id} is disabled` });
    expect(rig.server.received).toEqual([]);
    const forced = await w.testDestination(d.id, { message: TRACK }, '?force=true');
    expect(forced.body.data[0].destination_response_status).toEqual([200]);
    expect(rig.server.received).toHaveLength(1);
    expect((await w.testDestination(d.id, { message: TRACK }, '?force=yes')).body.error).toBe('query.force: force must be true or false');
  });
});
