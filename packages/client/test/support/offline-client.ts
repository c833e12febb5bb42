/**
 * The client the offline suites drive: session `s`, retrying fast (5-20 ms), without the state stream, on a
 * scripted API at the fetch boundary (or, given null, on the `host` in `over`); `over` adds or replaces options.
 */
import {
  createCondenseClient,
  type CondenseClient,
  type CondenseClientOptions,
  type FetchLike,
} from "../../src/index.ts";

const fastBackoff = { initialMs: 5, maxMs: 20, factor: 2 };

export function offlineClient(
  api: { fetch: FetchLike } | null,
  over: Partial<CondenseClientOptions> = {},
): CondenseClient {
  return createCondenseClient({
    ...(api ? { url: "http://api", fetch: api.fetch } : {}),
    sessionId: "s",
    backoff: fastBackoff,
    sse: false,
    ...over,
  });
}
