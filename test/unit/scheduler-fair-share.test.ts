import type { NeedingAttention } from '../../shared/domain/delivery/records';
import { fairShare } from '../../shared/domain/delivery/scheduled-delivery';

/** The scheduler's round shares its items between the destinations waiting, so no backlog starves the others. */
const batch = (destinationId: string, n: number): NeedingAttention => ({
  kind: 'batch',
  ref: { workspaceId: 'ws', sourceId: 'src', destinationId, requestId: `r-${destinationId}-${n}`, part: 0 },
});
const ids = (taken: Map<string, NeedingAttention[]>) =>
  Object.fromEntries([...taken].map(([id, items]) => [id, items.map((i) => (i.kind === 'batch' ? i.ref.requestId : ''))]));

test("a destination's long backlog, oldest first, leaves room for another's newer item", () => {
  const found = [...Array.from({ length: 15 }, (_, n) => batch('a', n)), batch('b', 0)];
  expect(ids(fairShare(found, 10))).toEqual({ a: ['r-a-0', 'r-a-1', 'r-a-2', 'r-a-3', 'r-a-4', 'r-a-5', 'r-a-6', 'r-a-7', 'r-a-8'], b: ['r-b-0'] });
});

test('one destination alone takes the whole round; what is found short of the limit is all taken', () => {
  expect(
    fairShare(
      Array.from({ length: 15 }, (_, n) => batch('a', n)),
      10,
    ).get('a'),
  ).toHaveLength(10);
  expect(ids(fairShare([batch('a', 0), batch('b', 0), batch('a', 1)], 10))).toEqual({ a: ['r-a-0', 'r-a-1'], b: ['r-b-0'] });
  expect(fairShare([], 10).size).toBe(0);
});
