/**
 * The client and the API speak the one contract (@condense/contract). The real client drives the real
 * API app (newApp over a migrated PGlite; the flush job run as a worker runs it): every request it
 * sends must parse with the contract's request schema of its route and lose nothing in the parse,
 * every answer must parse with the route's response schema (or the error body) and lose nothing, and
 * the error the client raises carries a code of the one vocabulary. The main routes (captures,
 * flushes, state, query, status) must each be seen; a route the test does not know fails it.
 */
import { F, turn, U } from "@condense/test-support/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { z } from "zod";
import { CondenseHttpError, createCondenseClient, type CondenseClient } from "@condense/client";
import {
  CapturesBody,
  CapturesResponse,
  DiagnosticsBody,
  DiagnosticsResponse,
  ERROR_CODES,
  ErrorBody,
  FlushAccepted,
  FlushBody,
  QueryBody,
  QueryResponse,
  SessionStatusSchema,
  StateDeltaSchema,
} from "@condense/contract";
import type { AgentMessage } from "@condense/core";
import { createDeterministicSummarizer } from "@condense/summarizer";
import { runFlush } from "@condense/worker";
import { startService, type ServiceUnderTest } from "../integration/support/api-and-worker.ts";

interface Exchange {
  method: string;
  path: string;
  requestBody: unknown;
  status: number;
  responseBody: unknown;
}

interface RouteContract {
  name: string;
  method: string;
  path: RegExp;
  request?: z.ZodType;
  response: z.ZodType;
}

const SESSION = "/v1/sessions/[^/]+";
const ROUTES: RouteContract[] = [
  {
    name: "captures",
    method: "POST",
    path: new RegExp(`^${SESSION}/captures$`),
    request: CapturesBody,
    response: CapturesResponse,
  },
  {
    name: "flushes",
    method: "POST",
    path: new RegExp(`^${SESSION}/flushes$`),
    request: FlushBody,
    response: FlushAccepted,
  },
  { name: "state", method: "GET", path: new RegExp(`^${SESSION}/state$`), response: StateDeltaSchema },
  {
    name: "query",
    method: "POST",
    path: new RegExp(`^${SESSION}/query$`),
    request: QueryBody,
    response: QueryResponse,
  },
  { name: "status", method: "GET", path: new RegExp(`^${SESSION}/status$`), response: SessionStatusSchema },
  {
    name: "diagnostics",
    method: "POST",
    path: new RegExp(`^${SESSION}/diagnostics$`),
    request: DiagnosticsBody,
    response: DiagnosticsResponse,
  },
  { name: "diagnostics", method: "GET", path: new RegExp(`^${SESSION}/diagnostics$`), response: DiagnosticsResponse },
];

const T0 = 1_700_000_000_000;
/** A user asks, the assistant reads two files, then answers: one closed chain of two calls. */
function conversation(): { branch: AgentMessage[]; turns: { message: AgentMessage; toolResults: AgentMessage[] }[] } {
  const user = U(T0, "read both files");
  const turns = ["a", "b"].map((f, i) =>
    turn(
      T0 + 10 + i * 100,
      { id: `toolu_${f}`, name: "read", args: { path: `${f}.ts` } },
      `export const ${f} = ${i};\n`.repeat(400),
      10,
    ),
  );
  const answer = F(T0 + 500, "both files export a constant");
  const next = U(T0 + 600, "thanks");
  return { branch: [user, ...turns.flatMap((t) => [t.message, ...t.toolResults]), answer, next], turns };
}

describe("client <-> API wire contract", () => {
  let svc: ServiceUnderTest;
  let client: CondenseClient;
  const exchanges: Exchange[] = [];
  const sessionId = `contract-${Math.random().toString(36).slice(2, 8)}`;

  beforeAll(async () => {
    svc = await startService("pglite");
    client = createCondenseClient({
      sessionId,
      sse: false,
      backoff: { initialMs: 10, maxMs: 20, factor: 2, random: () => 0.5 },
      host: {
        baseUrl: "http://condense.test",
        apiKey: svc.headers.authorization!.slice("Bearer ".length),
        fetch: async (input, init) => {
          const req = new Request(input, init);
          const sent = req.body ? await req.clone().text() : "";
          const res = await svc.app.fetch(req);
          const answer = await res.clone().text();
          exchanges.push({
            method: req.method,
            path: new URL(req.url).pathname,
            requestBody: sent ? JSON.parse(sent) : undefined,
            status: res.status,
            responseBody: answer ? JSON.parse(answer) : undefined,
          });
          return res;
        },
        close: async () => {},
      },
    });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  it("a client error for an unknown session carries the API's code from the one vocabulary", async () => {
    const err = await client.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CondenseHttpError);
    expect((err as CondenseHttpError).code).toBe("not_found");
    expect(ERROR_CODES).toContain((err as CondenseHttpError).code);
  });

  it("drives captures, a flush (run as the worker runs it), state, query and status", async () => {
    const { branch, turns } = conversation();
    await client.start([]);
    turns.forEach((t, turnIndex) => expect(client.capture({ ...t, turnIndex }).pushed).toBe(true));
    client.flushNow(branch, { tokens: 90_000, contextWindow: 200_000 } as never);
    expect(await client.drain(30_000)).toBe(true);
    const accepted = exchanges.find((e) => e.path.endsWith("/flushes") && e.status === 202);
    expect(accepted).toBeDefined();
    const { flushId, cursor } = accepted!.responseBody as { flushId: string; cursor: number };
    const run = await runFlush(
      { db: svc.handle.db, summarizer: createDeterministicSummarizer(), workerId: "contract" },
      {
        payload: { tenantId: svc.tenantId, sessionId, flushRequestId: flushId, cursor },
        attempt: 1,
        maxAttempts: 1,
        enqueuedAt: Date.now(),
        startedAt: Date.now(),
        signal: new AbortController().signal,
      },
    );
    expect(run.status).toBe("committed");
    await client.sync();
    client.applyPending();
    expect(client.state.summaries.length).toBeGreaterThan(0);
    const q = await client.query(["toolu_a"]);
    expect(q.text).toContain("export const a");
    const status = await client.status();
    expect(status.version).toBeGreaterThan(0);
  }, 120_000);

  it("every request parses with its route's request schema, every answer with its response schema, losing nothing", () => {
    const seen = new Set<string>();
    for (const e of exchanges) {
      const where = `${e.method} ${e.path} -> ${e.status}`;
      const route = ROUTES.find((r) => r.method === e.method && r.path.test(e.path));
      expect(route, `${where}: a route the contract test does not know`).toBeDefined();
      seen.add(route!.name);
      if (route!.request) {
        const parsed = route!.request.safeParse(e.requestBody);
        expect(parsed.error?.issues, `${where}: request`).toBeUndefined();
        // Defaults may add fields; nothing the client sent may be dropped.
        expect(parsed.data, `${where}: the request schema drops part of what the client sends`).toMatchObject(
          e.requestBody as object,
        );
      }
      const schema = e.status >= 200 && e.status < 300 ? route!.response : ErrorBody;
      const parsed = schema.safeParse(e.responseBody);
      expect(parsed.error?.issues, `${where}: response`).toBeUndefined();
      expect(parsed.data, `${where}: the response schema drops part of the answer`).toEqual(e.responseBody);
    }
    expect([...seen]).toEqual(expect.arrayContaining(["captures", "flushes", "state", "query", "status"]));
  });

  it("the flush request carried the detected chain and the context metrics the contract describes", () => {
    const flush = exchanges.find((e) => e.path.endsWith("/flushes"))!.requestBody as z.input<typeof FlushBody>;
    expect(flush.trigger).toBe("manual");
    expect(flush.metrics?.contextWindow).toBe(200_000);
    expect(flush.chains?.length).toBeGreaterThan(0);
    expect(flush.chains?.[0]).toMatchObject({
      middleToolCallIds: ["toolu_a", "toolu_b"],
      graceKeys: [],
      deferred: false,
    });
  });
});
