/**
 * Reservoir sampling (Vitter's Algorithm R): after n offers every offered item is in the sample with the
 * same probability size / n. The first `size` items fill it in arrival order.
 */
export const SAMPLE_SIZE = 5;

/** Offers the `seen`-th item (1-based, this one included) to `sample`, in place; returns the slot it took, or -1. */
export function offer<T>(sample: T[], seen: number, item: T, size = SAMPLE_SIZE, random: () => number = Math.random): number {
  if (sample.length < size) return sample.push(item) - 1;
  const slot = Math.floor(random() * seen);
  if (slot >= size) return -1;
  sample[slot] = item;
  return slot;
}
