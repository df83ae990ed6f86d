import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { unpackFailures } from '../../shared/persistence/failure-items';
import { keys } from '../../shared/persistence/keys';
import { deliveryRig, webhookPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';
import { itemsIn } from '../support/partition-items';

/**
 * Failed events' groups spread over their destination's failure partitions (a destination that refuses
 * everything writes a group per event it is sent), listed in one order across them, page by page; a group
 * written before, in the destination's one partition, is listed and retried where it is.
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

it('lists a group written before shards, and retries it where it is', async () => {
  const p = await refusingPipeline('/refuses-old', 2);
  const [group, other] = await groupsIn(keys.deliveryFailuresPartitions(p.ws.workspaceId, p.destination.id));
  expect(other).toBeDefined();
  // The first group as the layout before shards kept it: in the destination's one failures partition.
  const legacy = keys.legacyDeliveryFailures(p.ws.workspaceId, p.destination.id);
  await rig.rt.store.doc.send(new DeleteCommand({ TableName: rig.rt.store.table, Key: { pk: group!.pk, sk: group!.sk } }));
  await rig.rt.store.doc.send(new PutCommand({ TableName: rig.rt.store.table, Item: { ...group, pk: legacy } }));
  expect((await p.all(1)).listed.sort()).toEqual(['f-0', 'f-1']);

  rig.server.on('/refuses-old', json(200, {}));
  rig.server.received.length = 0;
  const started = await p.api('POST', `/v2/destinations/${p.destination.id}/failures/retry`, p.window);
  expect(started.status).toBe(202);
  await rig.rt.scheduler.runNow();
  const job = (await p.api('GET', `/v2/destinations/${p.destination.id}/jobs/${started.body.job.id}`)).body.job;
  expect(job).toMatchObject({ status: 'done', progress: { selected: 2, sent: 2, delivered: 2 } });
  expect((await p.page('&limit=50')).failures.map((f) => f.retry?.state)).toEqual(['delivered', 'delivered']);
  const [moved] = await groupsIn([legacy]);
  expect(Object.values(moved!.retries as Record<string, { state: string }>).map((r) => r.state)).toEqual(['delivered']);
});
