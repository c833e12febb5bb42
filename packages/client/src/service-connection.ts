/**
 * The client's connection to its service: the transport (a Condense API by URL, or an in-process or
 * local service resolved lazily from `host`, so creating a client never blocks and an embedded service
 * starts on first use), the summarizer hand-off to that service, and the version watch that keeps a
 * state mirror fresh over it. Closing it stops the watch and closes a host it started (from a factory),
 * never a host it was given.
 */
import type { BackoffPolicy } from "./backoff.ts";
import type { Emit } from "./client-events.ts";
import type { StateMirror } from "./state-mirror.ts";
import { SummarizerHandOff, type ResolveHandOff } from "./summarizer-handoff.ts";
import { createTransport, type FetchLike, type PlainRequest, type Transport } from "./transport.ts";
import { VersionWatch } from "./version-watch.ts";

/** An in-process service (embedded mode): the API app's fetch plus a key it accepts. */
export interface CondenseHost {
  baseUrl: string;
  apiKey: string;
  fetch: FetchLike;
  /** JSON requests without web Request/Response objects (the local service's socket), else through `fetch`. */
  request?: PlainRequest;
  close(): Promise<void>;
  /** False while no service has answered this process yet (a local service's first start); absent: always reachable. */
  reachable?(): boolean;
}

export interface ServiceConnectionOptions {
  url?: string;
  apiKey?: string;
  host?: CondenseHost | (() => Promise<CondenseHost>);
  fetch?: FetchLike;
  requestTimeoutMs?: number;
  summarizerHandOff?: ResolveHandOff;
  pollMs?: number;
  sse?: boolean;
}

export interface ServiceConnection {
  readonly transport: Transport;
  /** Null without `summarizerHandOff`. */
  readonly handOff: SummarizerHandOff | null;
  /** Start following the session's versions into `mirror` (idempotent). */
  watchVersions(): void;
  /** False while the host has not answered yet (see CondenseHost.reachable). */
  reachable(): boolean;
  close(): Promise<void>;
}

export function connectService(
  options: ServiceConnectionOptions,
  sessionPath: string,
  mirror: () => StateMirror,
  backoff: BackoffPolicy,
  emit: Emit,
): ServiceConnection {
  // The transport resolves the host lazily, so creating a client never blocks and an embedded service
  // starts on first use.
  let hostPromise: Promise<CondenseHost> | null = null;
  let resolvedHost: CondenseHost | null = typeof options.host === "object" ? options.host : null;
  const resolveHost = (): Promise<CondenseHost> => {
    if (!options.host) throw new Error("no host");
    if (!hostPromise) {
      hostPromise = typeof options.host === "function" ? options.host() : Promise.resolve(options.host);
      void hostPromise.then(
        (h) => {
          resolvedHost = h;
        },
        () => {},
      );
    }
    return hostPromise;
  };
  let transport: Transport;
  if (options.url) {
    transport = createTransport({
      baseUrl: options.url,
      ...(options.apiKey ? { apiKey: options.apiKey } : {}),
      ...(options.fetch ? { fetch: options.fetch } : {}),
      timeoutMs: options.requestTimeoutMs ?? 10_000,
    });
  } else {
    let inner: Promise<Transport> | null = null;
    const get = () =>
      (inner ??= resolveHost().then((h) =>
        createTransport({
          baseUrl: h.baseUrl,
          apiKey: h.apiKey,
          fetch: h.fetch,
          ...(h.request ? { plainRequest: h.request } : {}),
          timeoutMs: options.requestTimeoutMs ?? 30_000,
        }),
      ));
    transport = {
      request: async (m, p, b, s) => (await get()).request(m, p, b, s),
      stream: async (p, s) => (await get()).stream(p, s),
    };
  }

  const handOff = options.summarizerHandOff
    ? new SummarizerHandOff(transport, sessionPath, options.summarizerHandOff)
    : null;
  let watch: VersionWatch | null = null;
  let closed = false;

  return {
    transport,
    handOff,
    watchVersions() {
      if (closed) return;
      watch ??= new VersionWatch({
        transport,
        sessionPath,
        mirror: mirror(),
        pollMs: options.pollMs ?? 1000,
        backoff: { ...backoff, maxMs: Math.max(backoff.maxMs, 30_000) },
        sse: options.sse ?? true,
        onError: (error) => emit({ type: "error", where: "state pull", error, willRetry: true }),
      });
      watch.start();
    },
    reachable() {
      if (options.url) return true;
      return resolvedHost?.reachable?.() ?? resolvedHost !== null;
    },
    async close() {
      closed = true;
      await watch?.close();
      // Only a host this connection started (from the factory): a host passed in is the caller's, and
      // other sessions may share it (an embedded service serving several clients).
      if (hostPromise && typeof options.host === "function") {
        const h = await hostPromise.catch(() => null);
        await h?.close();
      }
    },
  };
}
