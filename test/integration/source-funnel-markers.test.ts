import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { hourOf } from '../../shared/domain/delivery/hours';
import { partNumber } from '../../shared/domain/ingestion/shards';
import { COUNTER_SHARDS } from '../../shared/persistence/counters';
import { hourlyUpdate } from '../../shared/persistence/funnel-counters';
import { keys } from '../../shared/persistence/keys';
import { SourceFunnelRepository, type CountedPart } from '../../shared/persistence/source-funnel';
import { LEGACY_WRITERS_GONE_MS } from '../../shared/persistence/cut-overs';
import { StoredPartMarkers } from '../../shared/persistence/stored-part-markers';
import { deliveryRig } from '../support/delivery-rig';

/**
 * A source's stored events are counted once per stored part, whatever hands a part over again: each part's
 * marker in the source's marker partitions, spread by request and part; a part counted when markers were kept
 * among the funnel's counters (a request's parts together) is found there until its source's cut-over.
 */
const rig = deliveryRig();

const table = () => rig.rt.store.table;
const doc = () => rig.rt.store.doc;
const newSource = () => ({ workspaceId: `wsm${ulid()}`, sourceId: ulid() });
type Source = ReturnType<typeof newSource>;
/** Parts of one request, each of its own ingest shard, of 2 events each. */
const partsOf = (source: Source, requestId: string, shards: number[]): CountedPart[] =>
  shards.map((shard) => ({ ...source, requestId, part: partNumber(shard, 0), events: 2 }));

async function stored(source: Source): Promise<number> {
  const hours = await new SourceFunnelRepository(rig.rt.store).sourceHours(
    source.workspaceId,
    source.sourceId,
    hourOf(Date.now() - 3600_000),
    hourOf(Date.now() + 3600_000),
  );
  return Number(hours.stored ?? 0);
}

const exists = async (key: { pk: string; sk: string }) =>
  (await doc().send(new GetCommand({ TableName: table(), Key: key, ConsistentRead: true }))).Item !== undefined;

/** What the layout before wrote for parts it counted: each part's marker in its request's funnel shard, and the hour's sum. */
async function countedTheWayBefore(parts: CountedPart[]): Promise<void> {
  for (const p of parts) {
    const marker = keys.legacyStoredPartMarker(p.workspaceId, p.sourceId, p.requestId, p.part);
    await doc().send(new PutCommand({ TableName: table(), Item: { ...marker, entity: 'funnelMarker', expiresAt: Math.floor(Date.now() / 1000) + 3600 } }));
    const sum = hourlyUpdate(table(), keys.sourceFunnel(p.workspaceId, p.sourceId, 5, hourOf(Date.now())), {
      counts: { stored: p.events, received: p.events },
    });
    await doc().send(new UpdateCommand(sum!.Update!));
  }
}

const cutOverAt = async (source: Source) =>
  (await doc().send(new GetCommand({ TableName: table(), Key: keys.storedPartMarkersCutOver(source.workspaceId, source.sourceId) }))).Item?.at as
    string | undefined;
const setCutOver = (source: Source, at: number) => new StoredPartMarkers(rig.rt.store).recordCutOver(source.workspaceId, source.sourceId, at);

it("spreads one request's markers over many partitions of their own, none beside the funnel's counters", async () => {
  const source = newSource();
  const parts = partsOf(
    source,
    ulid(),
    Array.from({ length: 17 }, (_, i) => i * 3),
  );
  await new SourceFunnelRepository(rig.rt.store).countStored(parts);
  expect(await stored(source)).toBe(34);

  const markers = parts.map((p) => keys.storedPartMarker(p.workspaceId, p.sourceId, p.requestId, p.part));
  for (const marker of markers) expect(await exists(marker)).toBe(true);
  expect(new Set(markers.map((m) => m.pk)).size).toBeGreaterThanOrEqual(12);
  for (let shard = 0; shard < COUNTER_SHARDS; shard++) {
    const { Items = [] } = await doc().send(
      new QueryCommand({
        TableName: table(),
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': keys.sourceFunnel(source.workspaceId, source.sourceId, shard, '').pk, ':p': 'P#' },
      }),
    );
    expect(Items).toEqual([]);
  }
});

it('counts a part counted the way before once when it is handed over again, and the others in the layout of now', async () => {
  const source = newSource();
  const [a, b, c] = partsOf(source, ulid(), [1, 2, 3]);
  await countedTheWayBefore([a!, b!]);
  expect(await stored(source)).toBe(4);

  const funnel = new SourceFunnelRepository(rig.rt.store);
  await funnel.countStored([a!, b!, c!]);
  expect(await stored(source)).toBe(6);
  expect(await exists(keys.storedPartMarker(c!.workspaceId, c!.sourceId, c!.requestId, c!.part))).toBe(true);
  expect(await exists(keys.storedPartMarker(a!.workspaceId, a!.sourceId, a!.requestId, a!.part))).toBe(false);

  // Handed over again, to this process and to another: nothing more.
  await funnel.countStored([c!, a!]);
  await new SourceFunnelRepository(rig.rt.store).countStored([a!, b!, c!]);
  expect(await stored(source)).toBe(6);
});

it('counts a part counted in the layout of now once, however it is handed over again, before the cut-over and after', async () => {
  for (const cutOver of ['ahead', 'past'] as const) {
    const source = newSource();
    if (cutOver === 'past') await setCutOver(source, Date.now() - 3600_000);
    const [a, b, c, d] = partsOf(source, ulid(), [0, 9, 17, 63]);
    const funnel = new SourceFunnelRepository(rig.rt.store);
    await funnel.countStored([a!, b!]);
    await funnel.countStored([b!, c!]); // a stream batch retried from its first failed record
    await new SourceFunnelRepository(rig.rt.store).countStored([a!, b!, c!]); // a parked record replayed
    await Promise.all([funnel.countStored([c!, d!]), funnel.countStored([d!, a!])]); // bisection's halves side by side
    expect(await stored(source)).toBe(8);
  }
});

it('records a source’s cut-over once, ahead of its first count; parts received from then on are not looked up the way before', async () => {
  const source = newSource();
  const before = Date.now();
  await new SourceFunnelRepository(rig.rt.store).countStored(partsOf(source, ulid(), [4]));
  const at = Date.parse((await cutOverAt(source))!);
  expect(at).toBeGreaterThanOrEqual(before + LEGACY_WRITERS_GONE_MS);
  expect(at).toBeLessThanOrEqual(Date.now() + LEGACY_WRITERS_GONE_MS);
  await new SourceFunnelRepository(rig.rt.store).countStored(partsOf(source, ulid(), [5]));
  expect(Date.parse((await cutOverAt(source))!)).toBe(at);

  // A request received after the cut-over was never counted the way before: an item there is not read.
  const later = newSource();
  await setCutOver(later, Date.now() - 60_000);
  const [part] = partsOf(later, ulid(), [6]);
  await countedTheWayBefore([part!]);
  await new SourceFunnelRepository(rig.rt.store).countStored([part!]);
  expect(await stored(later)).toBe(4);
});
