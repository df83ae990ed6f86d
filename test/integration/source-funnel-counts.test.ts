import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { ulid } from 'ulid';
import { hourOf } from '../../shared/domain/delivery/hours';
import { DuplicateFilter } from '../../shared/domain/ingestion/duplicates';
import { partNumber } from '../../shared/domain/ingestion/shards';
import { partitionsOf } from '../../shared/persistence/families';
import { keys } from '../../shared/persistence/keys';
import { MessageIdIndexRepository } from '../../shared/persistence/message-id-index';
import { SourceFunnelRepository, type CountedPart } from '../../shared/persistence/source-funnel';
import { deliveryRig } from '../support/delivery-rig';

/**
 * A source's stored events are counted once per stored part, whatever hands a part over again: a stream batch's
 * parts go in the stored count their messageId claims name, one record for the batch, not an item a part.
 */
const rig = deliveryRig();

const newSource = () => ({ workspaceId: `wsc${ulid()}`, sourceId: ulid() });
type Source = ReturnType<typeof newSource>;
/** Parts of one request, each of its own ingest shard, of 2 events each, counted in `countedIn`. */
const partsOf = (source: Source, requestId: string, shards: number[], countedIn?: string): CountedPart[] =>
  shards.map((shard) => ({ ...source, requestId, part: partNumber(shard, 0), events: 2, ...(countedIn && { countedIn }) }));

async function stored(source: Source): Promise<{ stored: number; duplicate: number }> {
  const hours = await new SourceFunnelRepository(rig.rt.store).sourceHours(
    source.workspaceId,
    source.sourceId,
    hourOf(Date.now() - 3600_000),
    hourOf(Date.now() + 3600_000),
  );
  return { stored: Number(hours.stored ?? 0), duplicate: Number(hours.duplicate ?? 0) };
}

/** Every record in the source's stored-count partitions. */
async function records(source: Source): Promise<Record<string, unknown>[]> {
  const pks = partitionsOf('storedCount', (shard) => `${keys.storedCount(source.workspaceId, source.sourceId, 'x').pk.replace(/#\d+$/, '')}#${shard}`);
  const found: Record<string, unknown>[] = [];
  for (const pk of pks) {
    const { Items = [] } = await rig.rt.store.doc.send(
      new QueryCommand({ TableName: rig.rt.store.table, KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': pk } }),
    );
    found.push(...Items);
  }
  return found;
}

it("counts a stream batch's parts in one record, the count their claims name", async () => {
  const source = newSource();
  const count = ulid();
  const parts = partsOf(
    source,
    ulid(),
    Array.from({ length: 17 }, (_, i) => i * 3),
    count,
  );
  await new SourceFunnelRepository(rig.rt.store).countStored(parts);
  expect(await stored(source)).toEqual({ stored: 34, duplicate: 0 });
  const [record, ...others] = await records(source);
  expect(others).toEqual([]);
  expect(record).toMatchObject(keys.storedCount(source.workspaceId, source.sourceId, count));
  expect([...(record!.parts as Set<string>)].sort()).toEqual(parts.map((p) => `${p.requestId}#${p.part}`).sort());
});

it('counts a part once, however it is handed over again', async () => {
  const source = newSource();
  const [first, second, third] = [ulid(), ulid(), ulid()];
  const requestId = ulid();
  // a and b were claimed by one attempt, c by a second, d by a third.
  const [a, b] = partsOf(source, requestId, [0, 9], first);
  const [c] = partsOf(source, requestId, [17], second);
  const [d] = partsOf(source, requestId, [63], third);
  const funnel = new SourceFunnelRepository(rig.rt.store);
  await funnel.countStored([a!, b!]);
  await funnel.countStored([b!, c!]); // a stream batch retried from its first failed record
  await new SourceFunnelRepository(rig.rt.store).countStored([a!, b!, c!]); // a parked record replayed
  await Promise.all([funnel.countStored([c!, d!]), funnel.countStored([d!, a!])]); // bisection's halves side by side
  expect(await stored(source)).toEqual({ stored: 8, duplicate: 0 });
});

it('counts a part that holds no claim (all its events duplicates) in a count of its own, once', async () => {
  const source = newSource();
  const [part] = partsOf(source, ulid(), [5]);
  const funnel = new SourceFunnelRepository(rig.rt.store);
  await funnel.countStored([{ ...part!, duplicates: 2 }]);
  await funnel.countStored([{ ...part!, duplicates: 2 }]);
  expect(await stored(source)).toEqual({ stored: 2, duplicate: 2 });
  expect(await records(source)).toHaveLength(1);
});

describe('with the claims that name the counts', () => {
  const filter = () => new DuplicateFilter(new MessageIdIndexRepository(rig.rt.store), async () => undefined);
  const part = (source: Source, requestId: string, shard: number, messageIds: string[]) => ({
    ...source,
    requestId,
    part: partNumber(shard, 0),
    events: messageIds.map((messageId) => ({ messageId, type: 'track', event: 'e', userId: `u-${messageId}` })),
  });
  const counted = (parts: ReturnType<typeof part>[], claimed: Awaited<ReturnType<DuplicateFilter['duplicatesIn']>>): CountedPart[] =>
    parts.map((p, i) => ({ ...p, events: p.events.length, duplicates: claimed.indexes[i]!.size, countedIn: claimed.countedIn[i] }));

  it('finds the count an attempt cut short named, and counts each part once', async () => {
    const source = newSource();
    const requestId = ulid();
    const [p1, p2, p3] = [part(source, requestId, 1, ['m1', 'm2']), part(source, requestId, 2, ['m3']), part(source, requestId, 3, ['m4', 'm1'])];
    // The first attempt claims p1 and p2, and its process dies before it counts them.
    const [cut, again] = [ulid(), ulid()];
    expect((await filter().duplicatesIn([p1, p2], { countId: cut })).countedIn).toEqual([cut, cut]);
    // The stream hands them over again beside p3, whose m1 repeats p1's: each part names the count its claims do.
    const claimed = await filter().duplicatesIn([p2, p1, p3], { countId: again });
    expect(claimed.countedIn).toEqual([cut, cut, again]);
    const funnel = new SourceFunnelRepository(rig.rt.store);
    await funnel.countStored(counted([p2, p1, p3], claimed));
    // And once more, as a parked record's replay would: nothing is counted twice.
    const replayed = await filter().duplicatesIn([p3, p1], { countId: ulid() });
    expect(replayed.countedIn).toEqual([again, cut]);
    await funnel.countStored(counted([p3, p1], replayed));
    expect(await stored(source)).toEqual({ stored: 5, duplicate: 1 });
    expect(await records(source)).toHaveLength(2);
  });
});
