/**
 * The cache reuse a warm agent loop reports: 40 requests, each reading the prefix the one before wrote
 * (200 tokens more every time) and writing 200 new tokens. The `roi` policy expects 20 more requests
 * from it, every one warm.
 */
import { emptyCacheReuse, observeCall, type CacheReuse, type CallUsage } from "../../src/economics/cache-reuse.ts";

const call = (cacheRead: number, cacheWrite: number): CallUsage => ({ input: 0, cacheRead, cacheWrite, output: 100 });

export const warmReuse = (): CacheReuse =>
  Array.from({ length: 40 }, (_, i) => call(200 * i, 200)).reduce(
    (r, u) => observeCall(r, u, false),
    emptyCacheReuse(),
  );
