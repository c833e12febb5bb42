/**
 * A real local HTTP server that speaks the session routes of the Condense API's wire as the client
 * uses them: captures, bodies and flushes (acknowledged or refused with the API's error body), the
 * state delta (`GET state?since=`, 404 before the first capture) and the version stream (SSE `version`
 * events). Scripted failures, a stop and a restart on the same port, and dropping the open streams
 * let the wire tests see the client's retry, backoff and reconnect over real sockets.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { STATE_DELTA_FORMAT, type StateDelta, type SummaryEntry } from "@condense/core";

export interface WireRequest {
  method: string;
  /** The route's last segment: captures, bodies, flushes, state, events, ... */
  route: string;
  path: string;
  body: unknown;
  at: number;
}

type Refusal = { status: number; code: string };

export interface WireServer {
  readonly url: string;
  readonly requests: WireRequest[];
  /** The version announced and served (0: the session does not exist yet). */
  readonly version: number;
  /** SSE connections opened so far. */
  readonly streamsOpened: number;
  /** Refuse the next `count` requests to `route` with `status` (and the API's error body). */
  refuse(route: string, status: number, code: string, count?: number): void;
  /** A new session version holding `summaries`; announced on the open streams. */
  publish(summaries: SummaryEntry[]): number;
  /** The service lost history before `version`: a delta since an older version starts there. */
  compactBefore(version: number): void;
  /** End every open SSE stream (an idle proxy, a restarting service). */
  dropStreams(): void;
  /** Stop listening (the service is unreachable); `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export function summary(id: string, coverage: string[] = [`${id}-call@1`]): SummaryEntry {
  return { id, text: `summary ${id}`, refs: [], coverage, toolNames: ["bash"], turnIndex: 0, timestamp: 1 };
}

export async function startWireServer(): Promise<WireServer> {
  const requests: WireRequest[] = [];
  const refusals = new Map<string, Refusal[]>();
  /** summaries added at version i+1 */
  const versions: SummaryEntry[][] = [];
  let compactedBefore = 0;
  let streamsOpened = 0;
  const streams = new Set<ServerResponse>();
  let port = 0;
  let server: Server | null = null;

  const json = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { "content-type": "application/json" });
    res.end(JSON.stringify(body));
  };
  const error = (res: ServerResponse, status: number, code: string, message: string) =>
    json(res, status, { error: { code, message, requestId: `req-${requests.length}` } });
  const announce = (res: ServerResponse, v: number) =>
    res.write(`event: version\nid: ${v}\ndata: ${JSON.stringify({ sessionId: "s", version: v })}\n\n`);

  function delta(since: number): StateDelta {
    const from = since > 0 && since < compactedBefore ? compactedBefore : since;
    return {
      format: STATE_DELTA_FORMAT,
      fromVersion: from,
      toVersion: versions.length,
      records: [],
      summaries: versions.slice(from).flat(),
      aliases: [],
      chains: [],
    };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString("utf8");
    const url = new URL(req.url ?? "/", "http://wire");
    const route = url.pathname.split("/").at(-1) ?? "";
    requests.push({
      method: req.method ?? "GET",
      route,
      path: url.pathname + url.search,
      body: text ? JSON.parse(text) : undefined,
      at: performance.now(),
    });
    const refusal = refusals.get(route)?.shift();
    if (refusal) return error(res, refusal.status, refusal.code, `refused ${route}`);
    const body = requests.at(-1)!.body as Record<string, unknown> | undefined;
    const since = Number(url.searchParams.get("since") ?? 0);
    switch (route) {
      case "captures": {
        const batches = (body?.batches as unknown[]) ?? [];
        return json(res, 200, { captureId: body?.captureId, accepted: batches.length, duplicates: 0, maxSeq: 1 });
      }
      case "bodies":
        return json(res, 200, { key: body?.key, part: body?.part });
      case "flushes":
        return json(res, 202, { flushId: body?.flushId, cursor: 1, trigger: body?.trigger, created: true });
      case "state":
        if (versions.length === 0) return error(res, 404, "not_found", "session s not found");
        return json(res, 200, delta(since));
      case "events": {
        if (versions.length === 0) return error(res, 404, "not_found", "session s not found");
        streamsOpened++;
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(": open\n\n");
        streams.add(res);
        res.on("close", () => streams.delete(res));
        if (versions.length > since) announce(res, versions.length);
        return;
      }
      default:
        return error(res, 404, "not_found", `no route ${url.pathname}`);
    }
  }

  const listen = () =>
    new Promise<void>((resolve, reject) => {
      const s = createServer((req, res) => {
        handle(req, res).catch((err) => error(res, 500, "internal", String(err)));
      });
      s.once("error", reject);
      s.listen(port, "127.0.0.1", () => {
        port = (s.address() as AddressInfo).port;
        server = s;
        resolve();
      });
    });
  await listen();

  const wire: WireServer = {
    get url() {
      return `http://127.0.0.1:${port}`;
    },
    requests,
    get version() {
      return versions.length;
    },
    get streamsOpened() {
      return streamsOpened;
    },
    refuse(route, status, code, count = 1) {
      const list = refusals.get(route) ?? [];
      for (let i = 0; i < count; i++) list.push({ status, code });
      refusals.set(route, list);
    },
    publish(summaries) {
      versions.push(summaries);
      for (const s of streams) announce(s, versions.length);
      return versions.length;
    },
    compactBefore(version) {
      compactedBefore = version;
    },
    dropStreams() {
      for (const s of streams) s.destroy();
      streams.clear();
    },
    async stop() {
      const s = server;
      server = null;
      if (!s) return;
      wire.dropStreams();
      s.closeAllConnections();
      await new Promise<void>((resolve) => s.close(() => resolve()));
    },
    start: listen,
  };
  return wire;
}

/** Poll `check` until it holds (or fail after `timeoutMs`). */
export async function until(check: () => boolean, timeoutMs = 5_000, what = "condition"): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}
