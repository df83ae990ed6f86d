import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { addError, emptyFunnel, type FunnelAdd } from '../../shared/domain/delivery/funnel';
import { finishedTogetherExtras } from '../../shared/persistence/failure-items';
import { destinationFunnelUpdate } from '../../shared/persistence/funnel-counters';
import { keys } from '../../shared/persistence/keys';
import { SourceFunnelRepository } from '../../shared/persistence/source-funnel';
import { itemBytes } from '../../bench/support/partitions';
import { deliveryRig, flowThrough, webhooksPipeline } from '../support/delivery-rig';
import { json } from '../support/destination-server';

/**
 * The funnels' time series (GET /v2/destinations/{id}/series, /v2/sources/{id}/series): counts per bucket of
 * ingestion time, read from the hourly counters and their 5-minute slots, adding up to the funnel.
 */
process.env.WEIR_DELIVERY_RETRY_BASE_MS = '20';
process.env.WEIR_DELIVERY_RETRY_WINDOW_MS = '150';
const rig = deliveryRig();

type Counted = 'delivered' | 'failed' | 'filtered' | 'retrying' | 'received' | 'refused' | 'duplicate';
type Bucket = { at: string } & Record<Counted, number>;
type Series = { window: { from: string; to: string; bucketSeconds: number }; buckets: Bucket[] };
const HOUR = 3600_000;
const sum = (buckets: Bucket[], name: Counted) => buckets.reduce((n, b) => n + b[name], 0);

async function pipeline() {
  const path = `/series-${ulid()}`;
  const p = await webhooksPipeline(rig, path);
  const series = async (kind: 'destinations' | 'sources', query: string): Promise<Series> => {
    const id = kind === 'destinations' ? p.destinations[0]! : p.source.id;
    const answer = await p.api('GET', `/v2/${kind}/${id}/series?${query}`);
    expect(answer.status).toBe(200);
    return answer.body as Series;
  };
  return { ...p, path, series };
}

describe('a destination’s time series', () => {
  it('adds up to the funnel of the same window, in 5-minute, hourly and daily buckets', async () => {
    const p = await pipeline();
    let flaky = 0;
    rig.server.on(p.path, (req, res) => {
      const id = String((JSON.parse(String(req.body ?? '{}')) as { messageId?: string }).messageId ?? '');
      if (id.startsWith('bad')) return json(400, { error: 'bad field' })(req, res);
      if (id.startsWith('flaky') && ++flaky === 1) return json(503, {})(req, res);
      return json(200, {})(req, res);
    });
    await p.publish('export function transformEvent(e) { return e.event === "drop" ? null : e; }');
    const names = ['ok-1', 'ok-2', 'bad-1', 'bad-2', 'bad-3', 'drop-1', 'flaky-1'];
    expect((await p.batch(names.map((messageId) => ({ type: 'track', event: messageId.split('-')[0], userId: `u-${messageId}`, messageId })))).status).toBe(
      200,
    );
    await rig.rt.poller.drain();
    const now = Date.now();
    const hours = { from: new Date(Math.floor(now / HOUR) * HOUR - HOUR).toISOString(), to: new Date(Math.ceil(now / HOUR) * HOUR + HOUR).toISOString() };
    const fine = await p.series('destinations', `from=${hours.from}&to=${hours.to}`);
    expect(fine.window).toEqual({ ...hours, bucketSeconds: 300 });
    expect(sum(fine.buckets, 'retrying')).toBe(1);

    await flowThrough(rig, 3);
    const funnel = (await p.api('GET', `/v2/destinations/${p.destinations[0]}/delivery?from=${hours.from}&to=${hours.to}`)).body;
    expect(funnel).toMatchObject({ routed: 7, delivered: 3, filtered: 1, retrying: 0, aborted: { total: 3 } });
    const classes = {
      delivered: funnel.delivered,
      failed: funnel.aborted.total + funnel.transformFailed,
      filtered: funnel.suppressed + funnel.duplicate + funnel.ruleFiltered + funnel.filtered,
      retrying: funnel.retrying,
    };
    for (const query of [`from=${hours.from}&to=${hours.to}`, 'window=24h', 'window=7d', 'window=30d']) {
      const answer = await p.series('destinations', query);
      const totals = Object.fromEntries(Object.keys(classes).map((name) => [name, sum(answer.buckets, name as Counted)]));
      expect({ query, totals }).toEqual({ query, totals: classes });
    }
    // The events sit in the bucket their request was answered in, and nowhere else.
    const at = (await p.series('destinations', `from=${hours.from}&to=${hours.to}`)).buckets.filter((b) => b.delivered + b.failed + b.filtered > 0);
    expect(at).toHaveLength(1);
    expect(Date.parse(at[0]!.at)).toBeLessThanOrEqual(now);
    expect(Date.parse(at[0]!.at)).toBeGreaterThan(now - 10 * 60_000);
  });

  it('places each batch in its 5-minute bucket, its hour and its day, from the time its request was answered', async () => {
    const p = await pipeline();
    const { workspaceId } = p.ws;
    const destinationId = p.destinations[0]!;
    const day = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 24 * HOUR; // yesterday, 00:00 UTC
    const at = (h: number, m: number) => day + h * HOUR + m * 60_000;
    const batch = (time: number, delivered: number, aborted = 0) => {
      const funnel: FunnelAdd = { ...emptyFunnel(), counts: { routed: delivered + aborted, delivered, ...(aborted > 0 && { aborted_http4xx: aborted }) } };
      const ref = { workspaceId, destinationId, sourceId: p.source.id, requestId: ulid(time), part: 0 };
      return {
        ref,
        change: { position: { progress: 0, output: 0 }, totals: { delivered, filtered: 0, aborted }, trail: '', leaseUntil: '', parks: [], funnel },
      };
    };
    // Two batches of 10:00–10:05 finishing together, one of 10:05–10:10, one of 10:55–11:00: one update of the hour.
    const items = finishedTogetherExtras(rig.rt.store.table, [batch(at(10, 1), 2), batch(at(10, 4), 1, 1), batch(at(10, 7), 4), batch(at(10, 59), 5)]);
    expect(items).toHaveLength(1);
    items.push(destinationFunnelUpdate(rig.rt.store.table, workspaceId, destinationId, at(13, 30), { ...emptyFunnel(), counts: { delivered: 6 } })!);
    await rig.rt.store.doc.send(new TransactWriteCommand({ TransactItems: items }));

    const fine = await p.series('destinations', `from=${new Date(at(10, 0)).toISOString()}&to=${new Date(at(14, 0)).toISOString()}`);
    expect(fine.buckets).toHaveLength(48);
    const nonZero = fine.buckets.filter((b) => b.delivered + b.failed > 0).map(({ at, delivered, failed }) => ({ at: at.slice(11, 16), delivered, failed }));
    expect(nonZero).toEqual([
      { at: '10:00', delivered: 3, failed: 1 },
      { at: '10:05', delivered: 4, failed: 0 },
      { at: '10:55', delivered: 5, failed: 0 },
      { at: '13:30', delivered: 6, failed: 0 },
    ]);
    const hourly = await p.series('destinations', `from=${new Date(at(9, 0)).toISOString()}&to=${new Date(at(23, 0)).toISOString()}`);
    expect(hourly.window.bucketSeconds).toBe(3600);
    expect(hourly.buckets.filter((b) => b.delivered > 0).map((b) => [b.at.slice(11, 13), b.delivered])).toEqual([
      ['10', 12],
      ['13', 6],
    ]);
    const daily = await p.series('destinations', 'window=30d');
    expect(daily.window.bucketSeconds).toBe(86400);
    expect(daily.buckets).toHaveLength(30);
    expect(daily.buckets.filter((b) => b.delivered > 0)).toEqual([{ at: new Date(day).toISOString(), delivered: 18, failed: 1, filtered: 0, retrying: 0 }]);
  });

  it('keeps a busy hour’s counter item under 1 KB with every 5-minute slot filled and a long error answer kept', async () => {
    const p = await pipeline();
    const hourStart = Math.floor(Date.now() / HOUR) * HOUR - 2 * HOUR;
    const key = keys.destinationFunnel(p.ws.workspaceId, p.destinations[0]!, 0, new Date(hourStart).toISOString().slice(0, 13));
    for (let slot = 0; slot < 12; slot++) {
      const funnel: FunnelAdd = {
        ...emptyFunnel(),
        counts: { routed: 4000, delivered: 3000, aborted_http4xx: 400, aborted_expired: 100, filtered: 300, ruleFiltered: 100, retrying: 100 },
        latency: Object.fromEntries(Array.from({ length: 25 }, (_, b) => [b + 10, 120])),
      };
      addError(funnel, { class: 'http4xx', status: 400, error: `destination answered 400: ${JSON.stringify({ error: 'x'.repeat(1000) })}` });
      const update = destinationFunnelUpdate(rig.rt.store.table, p.ws.workspaceId, p.destinations[0]!, hourStart + slot * 5 * 60_000 + 1000, funnel)!;
      // Into one shard every time: the fullest item an hour can make.
      await rig.rt.store.doc.send(new TransactWriteCommand({ TransactItems: [{ Update: { ...update.Update!, Key: key } }] }));
    }
    const { Item } = await rig.rt.store.doc.send(new GetCommand({ TableName: rig.rt.store.table, Key: key }));
    expect(Object.keys(Item!).filter((name) => /^m\d+[dfxr]$/.test(name))).toHaveLength(48);
    expect(itemBytes(Item)).toBeLessThan(1024);
  });

  it('answers 400 naming the parameter for a bad window, and 404 for another workspace’s destination or source', async () => {
    const p = await pipeline();
    const get = (route: string) => p.api('GET', route);
    const d = `/v2/destinations/${p.destinations[0]}/series`;
    expect((await get(`${d}?window=2h`)).body.error).toMatch(/^query\.window: must be one of 5m, 15m, 1h, 6h, 24h, 7d, 30d/);
    expect((await get(`${d}?window=1h&from=2026-01-01T00:00:00Z`)).body.error).toMatch(/^query\.window: give window or from, not both/);
    expect((await get(`${d}?from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z`)).body.error).toMatch(/^query\.from: must not be after to/);
    expect((await get(`${d}?from=2026-01-01T00:00:00Z&to=2026-02-01T00:00:00Z`)).body.error).toMatch(/^query\.from: the window is at most 30 days/);
    expect((await get(`${d}?from=yesterday`)).body.error).toMatch(/^query\.from: /);
    expect((await get(`/v2/sources/${p.source.id}/series?window=1y`)).status).toBe(400);
    const other = await pipeline();
    expect((await other.api('GET', `${d}?window=1h`)).status).toBe(404);
    expect((await other.api('GET', `/v2/sources/${p.source.id}/series?window=1h`)).status).toBe(404);
  });
});

describe('a source’s time series', () => {
  it('counts received, refused and duplicates in the buckets of their requests, adding up to the source’s funnel', async () => {
    const p = await pipeline();
    const { workspaceId } = p.ws;
    const sourceId = p.source.id;
    const day = Math.floor(Date.now() / (24 * HOUR)) * 24 * HOUR - 24 * HOUR;
    const part = (minute: number, events: number, duplicates = 0) => ({
      workspaceId,
      sourceId,
      requestId: ulid(day + minute * 60_000),
      part: 0,
      events,
      duplicates,
    });
    await new SourceFunnelRepository(rig.rt.store).countStored([part(62, 5, 1), part(64, 2), part(71, 3, 2)]);
    await new SourceFunnelRepository(rig.rt.store).countRefused(workspaceId, sourceId, 'throttled', 4, new Date(day + 71 * 60_000).toISOString());
    const from = new Date(day + HOUR).toISOString();
    const to = new Date(day + 2 * HOUR).toISOString();
    const series = await p.series('sources', `from=${from}&to=${to}`);
    expect(
      series.buckets.filter((b) => b.received > 0).map(({ at, received, refused, duplicate }) => ({ at: at.slice(11, 16), received, refused, duplicate })),
    ).toEqual([
      { at: '01:00', received: 7, refused: 0, duplicate: 1 },
      { at: '01:10', received: 7, refused: 4, duplicate: 2 },
    ]);
    const funnel = (await p.api('GET', `/v2/sources/${sourceId}/delivery?from=${from}&to=${to}`)).body;
    expect({ received: sum(series.buckets, 'received'), refused: sum(series.buckets, 'refused'), duplicate: sum(series.buckets, 'duplicate') }).toEqual({
      received: funnel.received,
      refused: funnel.refused.total,
      duplicate: funnel.duplicate,
    });
  });
});
