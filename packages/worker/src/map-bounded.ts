/**
 * Bounded parallelism for the summarizer calls of one flush: every batch is summarized in parallel
 * (CAP-FLUSH-5), but never more than `limit` at once, so one huge flush cannot open hundreds of
 * provider streams and starve the other sessions this worker is flushing.
 */
export async function mapBounded<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lanes = Array.from({ length: Math.max(1, Math.min(Math.floor(limit) || 1, items.length)) }, async () => {
    while (next < items.length) {
      const i = next++;
      await fn(items[i]!, i);
    }
  });
  await Promise.all(lanes);
}
