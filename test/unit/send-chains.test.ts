import { setTimeout as sleep } from 'node:timers/promises';
import { chainsOf, eachAtMost } from '../../shared/domain/delivery/send-chains';

describe('chains of batches', () => {
  const users: Record<string, string[]> = { a: ['ann', 'bob'], b: ['cy'], c: ['bob', 'dee'], d: ['eve'], e: ['dee', 'cy'] };

  it('puts batches with a user in common in one chain, in the run order, each chain in the order of its first batch', () => {
    expect(chainsOf(['a', 'b', 'c', 'd'], (m) => users[m]!)).toEqual([['a', 'c'], ['b'], ['d']]);
    // e shares dee with c (a's chain) and cy with b: all three chains become one, still in the run's order.
    expect(chainsOf(['a', 'b', 'c', 'd', 'e'], (m) => users[m]!)).toEqual([['a', 'b', 'c', 'e'], ['d']]);
  });
});

describe('at most so many at once', () => {
  it('runs at most the limit at once and answers in order', async () => {
    let running = 0;
    let most = 0;
    const results = await eachAtMost([5, 1, 4, 2, 3, 6], 3, async (n) => {
      most = Math.max(most, ++running);
      await sleep(n * 3);
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30, 60]);
    expect(most).toBe(3);
  });

  it('begins nothing after a failure, lets the running ones end, then throws the failure', async () => {
    const begun: number[] = [];
    const ended: number[] = [];
    const run = eachAtMost([1, 2, 3, 4, 5], 2, async (n) => {
      begun.push(n);
      await sleep(n === 1 ? 5 : 20);
      if (n === 1) throw new Error('one failed');
      ended.push(n);
    });
    await expect(run).rejects.toThrow('one failed');
    expect(begun).toEqual([1, 2]);
    expect(ended).toEqual([2]);
  });
});
