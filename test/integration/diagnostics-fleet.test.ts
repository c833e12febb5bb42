/**
 * Render diagnostics reach the fleet (issue 17 item 4): the real client posts what its render
 * reports (an orphan toolResult sweep, a malformed message) to POST /diagnostics once per kind and
 * key, only marks it reported after the write succeeded (a failed write is retried), and its footer
 * counts come from the service, so the worker's own `backfill-empty` shows as `b`. Session status
 * and fleet status count every kind. On PGlite and on real Postgres.
 */
import { F, R, U } from "@condense/test-support/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createCondenseClient, type CondenseClient } from "@condense/client";
import type { AgentMessage } from "@condense/core";
import { ensureSession, recordDiagnostics, schema } from "@condense/db";
import { dbKinds, startService, type ServiceUnderTest } from "./support/api-and-worker.ts";

const T0 = 1_700_000_000_000;
const until = async (check: () => boolean | Promise<boolean>, what: string) => {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(`timed out waiting for ${what}`);
};

describe.each(dbKinds())("render diagnostics reach the fleet (%s)", (kind) => {
  let svc: ServiceUnderTest;
  let client: CondenseClient;
  let failNext = 1;
  let posts = 0;
  const session = `diag-${kind}`;
  beforeAll(async () => {
    svc = await startService(kind);
    // The worker reported a backfill-empty for this session before the client started.
    await ensureSession(svc.handle.db, { tenantId: svc.tenantId, sessionId: session });
    await recordDiagnostics(svc.handle.db, {
      tenantId: svc.tenantId,
      sessionId: session,
      reports: [{ kind: "backfill-empty", dedupKey: "123", detail: "middles=0" }],
    });
    client = createCondenseClient({
      sessionId: session,
      sse: false,
      backoff: { initialMs: 20, maxMs: 50, factor: 2, random: () => 0.5 },
      host: {
        baseUrl: "http://condense.test",
        apiKey: svc.headers.authorization!.slice("Bearer ".length),
        fetch: async (input, init) => {
          const req = new Request(input, init);
          if (req.method === "POST" && new URL(req.url).pathname.endsWith("/diagnostics")) {
            posts++;
            // the first write fails: the diagnostic must not count as reported, and must be retried
            if (failNext-- > 0)
              return Response.json(
                { error: { code: "unavailable", message: "down", requestId: "x" } },
                { status: 503 },
              );
          }
          return svc.app.fetch(req);
        },
        close: async () => {},
      },
    });
    await client.start([]);
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  const stored = () =>
    svc.handle.db
      .select({ kind: schema.diagnostics.kind, key: schema.diagnostics.dedupKey })
      .from(schema.diagnostics)
      .where(and(eq(schema.diagnostics.tenantId, svc.tenantId), eq(schema.diagnostics.sessionId, session)));

  it("the footer shows the worker's backfill-empty as b", async () => {
    await until(() => client.diag.b === 1, "the service's counts");
    expect(client.footerText()).toContain("b1");
  });

  it("an orphan sweep and a malformed message are posted once, after a failed write was retried", async () => {
    const messages = [
      U(T0, "go", { plain: true }),
      R(T0 + 1, "ghost_1", "no call opened me", { name: "bash" }),
      42,
      F(T0 + 2),
    ] as unknown as AgentMessage[];
    const first = client.render(messages);
    expect(first.failedOpen).toBeUndefined();
    await until(async () => (await stored()).length >= 3, "the diagnostics to be stored");
    expect(posts).toBeGreaterThanOrEqual(2);
    // Rendering the same input again reports the same pairs: nothing new is posted.
    const before = posts;
    client.render(messages);
    client.render(messages);
    await new Promise((r) => setTimeout(r, 200));
    expect(posts).toBe(before);
    const kinds = (await stored()).map((d) => d.kind).sort();
    expect(kinds).toEqual(["backfill-empty", "malformed-message", "orphan-sweep"]);
    expect(client.diag).toMatchObject({ o: 1, b: 1 });
  });

  it("session status and fleet status count every kind", async () => {
    const res = await svc.app.request(`/v1/sessions/${session}/status`, { headers: svc.headers });
    const status = (await res.json()) as { diagnostics: Record<string, number> };
    expect(status.diagnostics).toEqual({ "backfill-empty": 1, "malformed-message": 1, "orphan-sweep": 1 });
    const fleet = (await (await svc.app.request("/v1/fleet/status", { headers: svc.headers })).json()) as {
      diagnostics: Record<string, number>;
    };
    expect(fleet.diagnostics).toEqual({ "backfill-empty": 1, "malformed-message": 1, "orphan-sweep": 1 });
  });
});
