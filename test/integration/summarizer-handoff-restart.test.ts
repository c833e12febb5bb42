/**
 * The hand-off survives a service restart (issue 16 item 1): the client hands the local service its
 * model and key (kept in memory only), the service restarts over the same data directory and forgets
 * them, the next flush is refused with 409 `summarizer_not_handed_off`, the client hands the model off
 * again by itself and the outbox's retry goes through, so that flush too is summarized by the agent's
 * model (the fake provider sees its key), never by another one. Real composition root
 * (startSingleProcessService: PGlite, in-process queue, worker, API), real client, a fake LLM over HTTP.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCondenseClient, type CondenseClient, type CondenseHost } from "@condense/client";
import type { AgentMessage } from "@condense/core";
import { startSingleProcessService, type SingleProcessService } from "@condense/service";
import { startFakeProvider, type FakeProvider } from "@condense/test-support/fake-provider";
import { A, F, R, U } from "@condense/test-support/messages";

const KEY = "agent-key-handoff-restart";
const SESSION = "handoff-restart";

function turn(n: number): AgentMessage[] {
  const ts = 1_800_000_000_000 + n * 10_000;
  const output = `${"line of output ".repeat(120)}${n}`;
  return [
    U(ts, `task ${n}`, { plain: true }),
    A(ts + 1, { id: "call_1", name: "bash", args: { command: `job ${n}` } }),
    R(ts + 2, "call_1", output, { name: "bash" }),
    F(ts + 3, `done ${n}`),
  ];
}

async function until<T>(what: string, fn: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe("summarizer hand-off across a service restart", () => {
  let fake: FakeProvider;
  let dataDir: string;
  let host: SingleProcessService;
  let client: CondenseClient;
  let handOffs = 0;

  beforeAll(async () => {
    fake = await startFakeProvider(() => ({ kind: "ok", text: "- [[1:bash]] the job printed its lines" }));
    dataDir = mkdtempSync(join(tmpdir(), "condense-handoff-"));
    host = await startSingleProcessService({ dataDir, env: {} });
    // The client keeps one host; its fetch follows whichever service process is current.
    const proxy: CondenseHost = {
      baseUrl: host.baseUrl,
      apiKey: host.apiKey,
      fetch: (i, init) => host.fetch(i, init),
      close: async () => {},
    };
    client = createCondenseClient({
      sessionId: SESSION,
      host: proxy,
      sse: false,
      pollMs: 100,
      backoff: { initialMs: 50, maxMs: 200, factor: 2 },
      summarizerHandOff: async () => {
        handOffs++;
        return {
          primary: {
            provider: "pi-fake",
            id: "agent-model",
            api: "openai-completions",
            baseUrl: fake.openaiBaseUrl,
            auth: { ok: true, apiKey: KEY },
          },
          fallback: null,
          notices: [],
        };
      },
    });
  }, 120_000);

  afterAll(async () => {
    await client?.close();
    await host?.close();
    await fake?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  interface Row {
    model: string | null;
    summarizerSource: string | null;
    summarizerNotice: string | null;
    processedBatches: number;
  }
  const metrics = async (): Promise<Row[]> =>
    (
      await host.runtime.db.pglite!.query<Row>(
        `select model, summarizer_source as "summarizerSource", summarizer_notice as "summarizerNotice", processed_batches as "processedBatches"
     from flush_metrics where session_id = $1 order by id`,
        [SESSION],
      )
    ).rows;

  it("summarizes with the handed-off model before and after the restart", async () => {
    await client.start([]);
    expect((await client.handOffSummarizer()).sent).toBe(true);
    const branch1 = turn(1);
    expect(client.flushNow(branch1).flush).toBe(true);
    const first = await until("the first flush", async () => (await metrics()).find((m) => m.processedBatches > 0));
    expect(first).toMatchObject({ model: "pi-fake/agent-model", summarizerSource: "handed-off" });
    expect(fake.requests.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`]);

    // The service restarts over the same data: the hand-off, in memory only, is gone.
    await host.close();
    host = await startSingleProcessService({ dataDir, env: {} });
    const before = handOffs;
    const branch2 = [...branch1, ...turn(2)];
    expect(client.flushNow(branch2).flush).toBe(true);
    const second = await until(
      "the flush after the restart",
      async () => (await metrics()).filter((m) => m.processedBatches > 0)[1],
    );
    expect(handOffs).toBeGreaterThan(before);
    expect(second).toMatchObject({
      model: "pi-fake/agent-model",
      summarizerSource: "handed-off",
      summarizerNotice: null,
    });
    expect(fake.requests.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
  }, 120_000);
});
