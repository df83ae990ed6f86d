import { unpackFailures } from '../../shared/persistence/failure-items';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { itemsIn } from '../support/partition-items';

/**
 * Failed events' groups spread over their destination's failure partitions (a destination that refuses
 * everything writes a group per event it is sent), listed in one order across them, page by page.
 */
const rig = deliveryRig();

async function refusingPipeline(path: string, count: number) {
  const { ws, api, hook: destination, send } = await webhookPipeline(rig, path);
  rig.server.on(path, json(400, { error: 'refused' }));
  await send(Array.from({ length: count }, (_, i) => ({ type: 'track', event: 'E', userId: `u-${i}`, messageId: `f-${i}` })));
  await rig.rt.poller.drain();
  const now = Date.now();
  const window = { from: new Date(now - 3600_000).toISOString(), to: new Date(now + 3600_000).toISOString() };
  const page = async (query: string) => {
    const answer = await api('GET', `/v2/destinations/${destination.id}/failures?from=${window.from}&to=${window.to}${query}`);
    expect(answer.status).toBe(200);
    return answer.body as { failures: { id: string; messageId: string; retry?: { state: string } }[]; paging: { next?: string } };
  };
  const all = async (limit: number) => {
    const listed: string[] = [];
    let pages = 0;
    for (let after = ''; ; pages++) {
      const { failures, paging } = await page(`&limit=${limit}${after}`);
      listed.push(...failures.map((f) => f.messageId));
      if (!paging.next) return { listed, pages: pages + 1 };
      after = `&after_cursor=${paging.next}`;
    }
  };
  return { ws, api, destination, window, page, all };
}

const groupsIn = (pks: string[]) => itemsIn(rig.rt.store, pks);

it('spreads failure groups over the partitions and pages through all of them once, in one order', async () => {
  const p = await refusingPipeline('/refuses-many', 30);
  const groups = await groupsIn(keys.deliveryFailuresPartitions(p.ws.workspaceId, p.destination.id));
  expect(groups).toHaveLength(30); // a webhook's refusal is a group of its own
  expect(new Set(groups.map((g) => g.pk)).size).toBeGreaterThan(10);
  const { listed, pages } = await p.all(7);
  expect(pages).toBe(5);
  expect([...listed].sort()).toEqual(Array.from({ length: 30 }, (_, i) => `f-${i}`).sort());
  // One order across partitions: the groups' keys (their events' receipt time first).
  const bySk = groups.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  expect(listed).toEqual(bySk.flatMap((g) => unpackFailures(g.payload as Uint8Array).map((f) => f!.messageId)));
});
