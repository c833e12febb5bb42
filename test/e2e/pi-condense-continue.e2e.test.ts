/**
 * Continuing a session pi-condense condensed (issue 16 item 5), with the real pi agent (0.73.1).
 * pi-condense itself does not run on this stack (2.9.1 needs pi >= 0.83 under the @earendil-works
 * names and Node >= 22.19; here pi is 0.73.1 on Node 20), so its state is written into a session pi
 * recorded, as entries built exactly as the spec describes (CAP-PERSIST-1, CAP-FLUSH-14, shapes as in
 * pi-condense's types): per-batch index records and summary messages (refs t1, t2), a compressed chain
 * (b1) over the first task, a dedup alias for a repeated output of a reused tool-call id, the frontier
 * and stats, plus a `contextPrune` settings block. Then Condense (no settings of its own) continues the
 * session (pi in RPC mode, prompted once Condense has taken the session over; the per-user local
 * service stopped before its database is read and when the suite ends): the old outputs arrive
 * stubbed with pi-condense's refs or inside its chain, nothing imported is summarized again, no
 * summary is delivered twice, the next ref is t3, and the settings carried over.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDb } from "@condense/db";
import {
  startFakeLlm,
  textOf,
  type ChatBody,
  type FakeLlm,
  type RecordedRequest,
  type ScriptedReply,
} from "@condense/test-support/fake-llm";
import { preparePiHome, runPi, sessionFileIn, startRpcPi, type PiHome } from "./pi-runner.ts";
import { stopLocalService, waitFor } from "./local-service-support.ts";
import { warmLocalService } from "./local-service-warm.ts";
import { embeddedPgliteDir, localDataDir } from "./scenario-run.ts";

const bash = (command: string) => ({ name: "bash", args: { command } });
const steps = (list: ScriptedReply[]) => (step: number) => list[Math.min(step, list.length - 1)]!;
const SCENARIOS = {
  PC1: steps([{ calls: [bash("seq 1 300")] }, { calls: [bash("seq 301 600")] }, { text: "PC1 done." }]),
  PC2: steps([{ calls: [bash("seq 1 300")] }, { text: "PC2 done: same output as before." }]),
  PC3: steps([{ calls: [bash("seq 5000 5300")] }, { text: "PC3 done." }]),
  // Keep working (slowly) until PC3's output arrives stubbed: its summary has then been delivered.
  PC4: (step: number, body: ChatBody): ScriptedReply =>
    body.messages.some((m) => m.role === "tool" && textOf(m.content).includes("`t3`")) || step >= 16
      ? { text: "PC4 done." }
      : { calls: [bash(`sleep 0.5; echo waiting ${step}`)] },
};
const RANGE_TEXT = "PC1 inspected the ranges 1-300 (`t1`) and 301-600 (`t2`).";

type Entry = Record<string, any>;
const readEntries = (file: string): Entry[] =>
  readFileSync(file, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Entry);

/** pi-condense's state for the recorded session, appended to its branch the way pi.appendEntry does. */
function appendPiCondenseState(file: string): { keys: string[] } {
  const entries = readEntries(file);
  const msgs = entries.filter((e) => e.type === "message").map((e) => e.message);
  const results = msgs.filter((m) => m.role === "toolResult");
  const calls = msgs
    .filter((m) => m.role === "assistant")
    .flatMap((m) => m.content.filter((b: Entry) => b.type === "toolCall"));
  const users = msgs.filter((m) => m.role === "user");
  const finals = msgs.filter((m) => m.role === "assistant" && !m.content.some((b: Entry) => b.type === "toolCall"));
  if (results.length !== 3 || calls.length !== 3)
    throw new Error(`unexpected recorded session: ${results.length} results`);
  const [r1, r2, r3] = results;
  const keys = [r1, r2, r3].map((r) => `${r.toolCallId}@${r.timestamp}`);
  const record = (r: Entry, i: number, turnIndex: number) => ({
    toolCallId: r.toolCallId,
    toolName: "bash",
    args: calls[i].arguments,
    resultText: textOf(r.content),
    isError: false,
    turnIndex,
    timestamp: r.timestamp + 5,
    resultTimestamp: r.timestamp,
  });
  const summary = (ref: string, r: Entry, turnIndex: number, text: string) => ({
    type: "custom_message",
    customType: "context-prune-summary",
    display: false,
    content: `${text}\n\n---\n**Summarized tool refs**: \`${ref}\`\nUse \`context_tree_query\` with these refs to retrieve the original full outputs.`,
    details: {
      toolCallRefs: [{ shortId: ref, toolCallId: r.toolCallId, resultTimestamp: r.timestamp }],
      toolNames: ["bash"],
      turnIndex,
      timestamp: r.timestamp + 5,
    },
  });
  const frontier = (r: Entry, turnIndex: number, batches: number, toolCalls: number, outcome: string) => ({
    type: "custom",
    customType: "context-prune-frontier",
    data: {
      lastAttemptedToolCallId: r.toolCallId,
      lastAttemptedToolName: "bash",
      lastAttemptedTurnIndex: turnIndex,
      lastAttemptedTimestamp: r.timestamp + 5,
      attemptedBatchCount: batches,
      attemptedToolCallCount: toolCalls,
      rawCharCount: 1800,
      summaryCharCount: 300,
      outcome,
    },
  });
  const added: Entry[] = [
    // The first flush (PC1's text reply): two batches, refs t1 and t2, one index entry and one summary per batch.
    { type: "custom", customType: "context-prune-index", data: { toolCalls: [record(r1, 0, 0)] } },
    summary("t1", r1, 0, "- `t1` bash: `seq 1 300` printed the numbers 1 to 300"),
    { type: "custom", customType: "context-prune-index", data: { toolCalls: [record(r2, 1, 1)] } },
    summary("t2", r2, 1, "- `t2` bash: `seq 301 600` printed the numbers 301 to 600"),
    frontier(r2, 1, 2, 2, "summarized"),
    {
      type: "custom",
      customType: "context-prune-stats",
      data: {
        totalInputTokens: 900,
        totalOutputTokens: 60,
        totalCost: 0.0012,
        callCount: 2,
        chainsCompressed: 0,
        rangesSummarized: 0,
      },
    },
    // Chain compression of PC1 (closed by its text reply), with a fused range summary.
    {
      type: "custom",
      customType: "context-prune-chain",
      data: {
        blockId: "b1",
        startUserTimestamp: users[0].timestamp,
        finalAssistantTimestamp: finals[0].timestamp,
        droppedToolCallIds: [r1.toolCallId, r2.toolCallId],
        droppedOccurrenceKeys: [keys[0], keys[1]],
        protectedToolCallIds: [],
        toolRefs: ["t1", "t2"],
        compressedAt: finals[0].timestamp + 50,
        rangeSummaryText: RANGE_TEXT,
      },
    },
    // The second flush (PC2): the same output again under the reused id: a dedup alias, no summary.
    {
      type: "custom",
      customType: "context-prune-dedup-alias",
      data: {
        newToolCallId: r3.toolCallId,
        originalToolCallId: r1.toolCallId,
        newResultTimestamp: r3.timestamp,
        originalResultTimestamp: r1.timestamp,
      },
    },
    frontier(r3, 3, 1, 1, "skipped-deduped"),
    {
      type: "custom",
      customType: "context-prune-stats",
      data: {
        totalInputTokens: 1100,
        totalOutputTokens: 80,
        totalCost: 0.0015,
        callCount: 3,
        chainsCompressed: 1,
        rangesSummarized: 1,
      },
    },
  ];
  let parent = entries.at(-1)!.id as string;
  const base = Date.parse(entries.at(-1)!.timestamp as string);
  const lines = added.map((e, i) => {
    const id = (0x10000000 + i).toString(16);
    const line = { ...e, id, parentId: parent, timestamp: new Date(base + 10 + i).toISOString() };
    parent = id;
    return JSON.stringify(line);
  });
  appendFileSync(file, `${lines.join("\n")}\n`);
  return { keys };
}

describe("real pi + Condense continue a session pi-condense condensed", () => {
  let llm: FakeLlm;
  let home: PiHome;
  let file: string;
  let keys: string[];
  let notices = "";
  let before: Entry[];
  let after: Entry[];
  let flushRows: { trigger: string; model: string | null; reason: string | null }[] = [];
  let records: { key: string; short_ref: string | null }[] = [];

  beforeAll(async () => {
    llm = await startFakeLlm({ scenarios: SCENARIOS });
    home = preparePiHome(mkdtempSync(join(tmpdir(), "condense-pc-")), llm.baseUrl, { enabled: false }, 128_000);
    // The per-user local service, running before pi starts (local-service-warm.ts); stopped at the end.
    await warmLocalService(home);
    // The session as pi recorded it while pi-condense was the condenser (Condense loaded but off).
    const first = await runPi(
      home,
      ["SCENARIO PC1: inspect two ranges", "SCENARIO PC2: inspect the first range again"],
      {},
    );
    if (first.code !== 0) throw new Error(`first pi run exited ${first.code}\n${first.stderr.slice(-3000)}`);
    file = sessionFileIn(home.sessionDir);
    ({ keys } = appendPiCondenseState(file));
    before = readEntries(file);
    // pi-condense's settings, and none of Condense's own.
    writeFileSync(
      join(home.agentDir, "settings.json"),
      JSON.stringify(
        {
          retry: { enabled: false },
          compaction: { enabled: false },
          contextPrune: {
            enabled: true,
            showPruneStatusLine: false,
            protectedTools: ["write"],
            minBatchChars: 500,
            summarizerModel: "default",
            chainCompression: {
              enabled: true,
              rollingWindow: 3,
              stripFinalAssistantThinking: true,
              fuseRangeSummary: true,
            },
          },
        },
        null,
        2,
      ),
    );
    llm.requests.length = 0;
    // In RPC mode the first prompt goes out once Condense has taken the session over (the import
    // notice, then the footer refresh after the first sync): a headless run's first request would race
    // the extension's start, which never waits on the service.
    const pi = startRpcPi(home, { args: ["--session", file], env: { CONDENSE_QUIET: "0" } });
    try {
      const ends = () => pi.events.filter((e) => e.type === "agent_end").length;
      const imported = () => pi.notices().includes("continuing pi-condense's work");
      await waitFor("the pi-condense import", () => imported() || pi.code() !== null, 120_000);
      if (!imported()) throw new Error(`resumed pi exited ${pi.code()} before importing\n${pi.stderr().slice(-3000)}`);
      // The reload refreshes the footer once its first sync is applied: a setStatus after the notice.
      const ui = (e: Record<string, unknown>, method: string) =>
        e.type === "extension_ui_request" && e.method === method;
      const synced = () => {
        const at = pi.events.findIndex(
          (e) => ui(e, "notify") && String(e.message ?? "").includes("continuing pi-condense's work"),
        );
        return at >= 0 && pi.events.slice(at + 1).some((e) => ui(e, "setStatus"));
      };
      await waitFor("the first sync after the import", synced, 60_000);
      for (const [i, message] of ["SCENARIO PC3: one more range", "SCENARIO PC4: wait for it"].entries()) {
        pi.send({ type: "prompt", message });
        await waitFor(message, () => ends() > i || pi.code() !== null, 240_000);
      }
      pi.send({ type: "prompt", message: "/condense status" });
      await waitFor("/condense status", () => pi.notices().includes("Condense status") || pi.code() !== null, 60_000);
      notices = pi.notices();
      if (!notices.includes("Condense status"))
        throw new Error(`resumed pi exited ${pi.code()}\n${pi.stderr().slice(-3000)}`);
    } finally {
      await pi.close();
    }
    after = readEntries(file);
    // The local service pi started outlives it and owns the database until it stops (active flushes finish).
    await stopLocalService(localDataDir(home));
    const db = await createDb(`pglite:${embeddedPgliteDir(home)}`);
    try {
      flushRows = (
        await db.pglite!.query<{ trigger: string; model: string | null; reason: string | null }>(
          "select trigger, model, reason from flush_metrics order by id",
        )
      ).rows;
      records = (
        await db.pglite!.query<{ key: string; short_ref: string | null }>(
          "select key, short_ref from tool_call_records order by seq",
        )
      ).rows;
    } finally {
      await db.close();
    }
  }, 300_000);

  afterAll(async () => {
    if (home) await stopLocalService(localDataDir(home)).catch(() => {});
    await llm?.close();
    if (home) rmSync(home.root, { recursive: true, force: true });
  });

  const agent = () => llm.requests.filter((r) => r.kind === "agent");
  const toolTexts = (r: RecordedRequest) =>
    r.body.messages.filter((m) => m.role === "tool").map((m) => textOf(m.content));

  it("imports pi-condense's state once: records keep their refs, the repeat is an alias", () => {
    expect(flushRows[0]).toMatchObject({ trigger: "import", model: "pi-condense" });
    expect(flushRows[0]!.reason).toContain("2 record(s), 2 summary(ies), 1 chain(s)");
    const byKey = new Map(records.map((r) => [r.key, r.short_ref]));
    expect(byKey.get(keys[0]!)).toBe("t1");
    expect(byKey.get(keys[1]!)).toBe("t2");
    // the alias's key is no record of its own: the repeated output is an alias of t1
    expect(byKey.has(keys[2]!)).toBe(false);
  });

  it("the resumed session's first request carries no raw output pi-condense condensed: the chain block and stubs", () => {
    const first = agent()[0]!;
    const texts = toolTexts(first);
    const raw = texts.filter((t) => /^1\n2\n3\n/.test(t) || /^301\n302\n/.test(t));
    expect(raw).toEqual([]);
    const all = JSON.stringify(first.body.messages);
    // PC1's chain is one block with pi-condense's range summary; PC2's repeat is stubbed with t1.
    expect(all).toContain(RANGE_TEXT);
    expect(texts.some((t) => t.includes("`t1`"))).toBe(true);
  });

  it("nothing pi-condense summarized goes to the summarizer again; only the new call does, as t3", () => {
    const summarizer = llm.requests.filter((r) => r.kind === "summarizer");
    expect(summarizer.length).toBeGreaterThan(0);
    for (const r of summarizer) {
      const prompt = textOf(r.body.messages.at(-1)!.content);
      expect(prompt).toContain("seq 5000 5300");
      expect(prompt).not.toContain("seq 1 300");
      expect(prompt).not.toContain("seq 301 600");
    }
    const fresh = records.filter((r) => !keys.includes(r.key));
    expect(fresh.map((r) => r.short_ref)).toEqual(["t3"]);
  });

  it("no summary is delivered twice: the session gains one Condense summary, for the new call only", () => {
    const added = after.slice(before.length);
    const summaries = added.filter(
      (e) =>
        e.type === "custom_message" &&
        (e.customType === "condense-summary" || e.customType === "context-prune-summary"),
    );
    expect(summaries).toHaveLength(1);
    expect(summaries[0]!.customType).toBe("condense-summary");
    const covered = (summaries[0]!.details.toolCallRefs as { toolCallId: string; resultTimestamp: number }[]).map(
      (r) => `${r.toolCallId}@${r.resultTimestamp}`,
    );
    expect(covered.some((k) => keys.includes(k))).toBe(false);
    expect(summaries[0]!.details.toolCallRefs[0].shortId).toBe("t3");
  });

  it("pi-condense's contextPrune settings carry over", () => {
    expect(notices).toContain("status line: off");
    expect(notices).toContain("protected tools: write");
    expect(notices).toContain("continuing pi-condense's work: 2 condensed output(s), 2 summary(ies), 1 chain(s)");
  });
});
