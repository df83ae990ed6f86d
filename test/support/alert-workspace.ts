import type { DeliveryRig } from './delivery-rig';
import { basic, bearer, call } from './runtime';

/** A fresh workspace with a source, and a sender of `count` events of distinct users handed to the consumers. */
export async function alertWorkspace(rig: DeliveryRig) {
  const ws = await rig.rt.newWorkspace();
  const api = (method: string, path: string, body?: unknown) => call(rig.rt.controlUrl, method, path, { auth: bearer(ws.token), body });
  const source = (await api('POST', '/v2/sources', { name: 'app' })).body.source as { id: string; writeKey: string };
  let n = 0;
  const send = async (count: number) => {
    const batch = Array.from({ length: count }, () => ({ type: 'track', event: 'e', userId: `user-${n}`, messageId: `m-${n++}` }));
    expect((await call(rig.rt.dataUrl, 'POST', '/v1/batch', { auth: basic(source.writeKey, ''), body: { batch } })).status).toBe(200);
    await rig.rt.poller.drain();
  };
  return { ws, api, source, send };
}
