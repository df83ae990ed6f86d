import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { hourOf } from '../../shared/domain/delivery/hours';
import { partNumber } from '../../shared/domain/ingestion/shards';
import { SHARDS } from '../../shared/persistence/families';
import { keys } from '../../shared/persistence/keys';
import { SourceFunnelRepository, type CountedPart } from '../../shared/persistence/source-funnel';
import { deliveryRig } from '../support/delivery-rig';

/**
 * A source's stored events are counted once per stored part, whatever hands a part over again: each part's
 * marker in the source's marker partitions, spread by request and part.
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
  for (let shard = 0; shard < SHARDS.counters; shard++) {
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

it('counts a part once, however it is handed over again', async () => {
  const source = newSource();
  const [a, b, c, d] = partsOf(source, ulid(), [0, 9, 17, 63]);
  const funnel = new SourceFunnelRepository(rig.rt.store);
  await funnel.countStored([a!, b!]);
  await funnel.countStored([b!, c!]); // a stream batch retried from its first failed record
  await new SourceFunnelRepository(rig.rt.store).countStored([a!, b!, c!]); // a parked record replayed
  await Promise.all([funnel.countStored([c!, d!]), funnel.countStored([d!, a!])]); // bisection's halves side by side
  expect(await stored(source)).toBe(8);
});
