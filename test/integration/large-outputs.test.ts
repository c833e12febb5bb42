/**
 * Outputs of any size (issue 17 item 1): a 5 MB and a 50 MB tool result captured by the real client
 * travel out of line through its outbox (parts, then the capture that refers to them), are verified
 * and indexed by the API at once (a tN and a stored stub, no flush needed), leave the flush job
 * with nothing to redo, and come back byte for byte through the recovery pages. The API's body limit
 * stays what it is. On PGlite and on real Postgres.
 */
import { turn } from "@condense/test-support/messages";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { and, eq } from "drizzle-orm";
import { createCondenseClient, type CondenseClient } from "@condense/client";
import { pruneMessages, type AgentMessage } from "@condense/core";
import { schema } from "@condense/db";
import { dbKinds, startService, type ServiceUnderTest } from "./support/api-and-worker.ts";

const T0 = 1_700_000_000_000;

/** Deterministic text of `bytes` ASCII bytes in numbered lines, with a unicode tail (still ~bytes). */
function bigText(bytes: number, seed: string): string {
  const line = (i: number) => `${seed} line ${i} ${"x".repeat(40)}\n`;
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const l = line(i);
    parts.push(l);
    n += l.length;
  }
  return `${parts.join("").slice(0, bytes - 8)}end 😀 é`;
}

/** A `cat` of `id` whose result (at `ts`) is `text`, as the client's turn end receives it. */
function catTurn(id: string, text: string, ts: number, turnIndex: number) {
  return { ...turn(ts - 10, { id, name: "bash", args: { command: `cat ${id}` } }, text, 10), turnIndex };
}

async function pageThrough(
  svc: ServiceUnderTest,
  sessionId: string,
  ref: string,
  maxBytes: number,
): Promise<{ text: string; pages: number }> {
  const pages: string[] = [];
  let offset: number | null = 0;
  while (offset !== null) {
    const r: { status: number; body: any } = await svc.post(`/v1/sessions/${sessionId}/query`, {
      toolCallIds: [ref],
      offset,
      maxBytes,
      limit: 100_000,
    });
    expect(r.status).toBe(200);
    const hit: { resultText: string; nextOffset: number | null } = r.body.hits[0];
    pages.push(hit.resultText);
    offset = hit.nextOffset;
  }
  return { text: pages.join(""), pages: pages.length };
}

describe.each(dbKinds())("outputs of any size (%s)", (kind) => {
  let svc: ServiceUnderTest;
  let client: CondenseClient;
  const session = `large-${kind}`;
  const five = bigText(5 * 1000 * 1000, "five");
  const fifty = bigText(50 * 1000 * 1000, "fifty");
  beforeAll(async () => {
    svc = await startService(kind);
    client = createCondenseClient({
      sessionId: session,
      sse: false,
      requestTimeoutMs: 120_000,
      host: {
        baseUrl: "http://condense.test",
        apiKey: svc.headers.authorization!.slice("Bearer ".length),
        fetch: async (input, init) => svc.app.fetch(new Request(input, init)),
        close: async () => {},
      },
    });
  }, 120_000);
  afterAll(async () => {
    await client?.close();
    await svc?.close();
  });

  it("the API's request limit still refuses one oversized POST (the limit stays; clients route around it)", async () => {
    const r = await svc.post(`/v1/sessions/${session}/captures`, {
      captureId: "raw",
      batches: [
        {
          turnIndex: 0,
          timestamp: T0,
          assistantText: "",
          toolCalls: [
            { toolCallId: "raw", toolName: "bash", args: {}, resultText: five, isError: false, resultTimestamp: T0 },
          ],
        },
      ],
    });
    expect(r.status).toBe(413);
  });

  it("5 MB and 50 MB results are captured through the outbox, indexed at once with a tN and a stored stub", async () => {
    const a = catTurn("big5", five, T0 + 100, 0);
    const b = catTurn("big50", fifty, T0 + 200, 1);
    expect(client.capture(a).pushed).toBe(true);
    expect(client.capture(b).pushed).toBe(true);
    expect(await client.drain(600_000)).toBe(true);
    expect(client.outboxSize).toBe(0);
    await client.sync();
    client.applyPending();
    const records = [...client.state.records.values()];
    expect(records.map((r) => [r.key, r.shortRef, r.stored?.bytes])).toEqual([
      [`big5@${T0 + 100}`, "t1", Buffer.byteLength(five)],
      [`big50@${T0 + 200}`, "t2", Buffer.byteLength(fifty)],
    ]);
    // The render stubs both right away: no summary was needed.
    const rendered = client.render([
      { role: "user", content: "go", timestamp: T0 } as AgentMessage,
      a.message,
      ...a.toolResults,
      b.message,
      ...b.toolResults,
    ]);
    expect(rendered.pruned).toBe(true);
    const stub = (rendered.messages[2] as { content: { text: string }[] }).content[0]!.text;
    expect(stub).toContain("ref `t1`");
    expect(stub.length).toBeLessThan(4000);
    expect(pruneMessages(rendered.messages, client.state, { settings: client.settings }).messages).toEqual(
      rendered.messages,
    );
    const rows = await svc.handle.db
      .select({ status: schema.captures.status, parts: schema.captures.bodyParts, text: schema.captures.resultText })
      .from(schema.captures)
      .where(and(eq(schema.captures.tenantId, svc.tenantId), eq(schema.captures.sessionId, session)))
      .orderBy(schema.captures.seq);
    expect(rows.map((r) => [r.status, r.parts, r.text])).toEqual([
      ["stored", 20, ""],
      ["stored", 191, ""],
    ]);
  }, 600_000);

  it("a flush afterwards has nothing to redo for them, and the worker leaves the records as they are", async () => {
    const result = await svc.flush(session);
    expect(result.status).toBe("empty");
  });

  it("recovery pages rebuild both byte for byte (default pages for 5 MB, 1 MiB pages for 50 MB)", async () => {
    const small = await pageThrough(svc, session, "t1", 50 * 1024);
    expect(small.text === five).toBe(true);
    expect(small.pages).toBeGreaterThan(90);
    const large = await pageThrough(svc, session, "t2", 1024 * 1024);
    expect(large.text.length).toBe(fifty.length);
    expect(large.text === fifty).toBe(true);
  }, 600_000);
});
