/**
 * AS-46 and AS-56 as Condense does them: oversized outputs are stored out of line by the worker (not
 * spilled to a sidecar file by the agent), rendered as a stored stub, recovered whole by the query,
 * and aliased rather than stored twice; a flush with nothing captured leaves exactly one `empty` row.
 */
import { A, R, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, pruneMessages, type AgentMessage } from "@condense/core";
import { lookupRecordsForQuery } from "@condense/db";
import { createDeterministicSummarizer } from "@condense/summarizer";
import { batch, call, flushNow, T0, TENANT } from "./support/flush-fixtures.ts";
import { captureRows, metricsRows, stateOf } from "./support/state-reads.ts";
import { testDbKinds } from "@condense/test-support/test-db";
import { useSuiteDatabase } from "./support/suite-database.ts";

describe.each(testDbKinds())("stored outputs and empty flushes (%s)", (kind) => {
  const suite = useSuiteDatabase(kind);

  it("AS-46: a 70,000-char result is stored whole, stubbed with a preview, recovered verbatim, and an identical later output aliases it", async () => {
    const db = suite.db;
    const summarizer = createDeterministicSummarizer();
    const big = call("bash_9", T0 + 150, 70_000);
    const { result } = await flushNow(db, summarizer, "as46", [batch(0, [big])]);
    expect(result.outcome).toBe("summarized");
    let state = await stateOf(db, "as46");
    const rec = state.records.get(`bash_9@${T0 + 150}`)!;
    expect(rec).toMatchObject({ resultText: "", stored: { bytes: 70_000 } });
    expect(rec.contentHash).toMatch(/^[0-9a-f]{40}$/);
    expect(rec.stored!.preview.length).toBeGreaterThan(0);
    expect(rec.stored!.preview.length).toBeLessThanOrEqual(DEFAULT_SETTINGS.spillPreviewBytes);

    const messages: AgentMessage[] = [
      U(T0, "go", { plain: true }),
      A(T0 + 100, "bash_9"),
      R(T0 + 150, "bash_9", big.resultText),
    ];
    const rendered = pruneMessages(messages, state, { settings: DEFAULT_SETTINGS });
    expect(rendered.pruned).toBe(true);
    const stub = (rendered.messages[2] as { content: { text: string }[] }).content[0]!.text;
    expect(stub).toContain("70000");
    expect(stub).toContain(rec.stored!.preview);
    expect(stub).toContain("context_tree_query");
    expect(stub.length).toBeLessThan(3000);

    const [answer] = await lookupRecordsForQuery(db, { tenantId: TENANT, sessionId: "as46", inputs: ["bash_9"] });
    expect(answer!.hits).toHaveLength(1);
    expect(answer!.hits[0]!.record.resultText).toBe(big.resultText);

    const again = { ...big, toolCallId: "bash_10", resultTimestamp: T0 + 2150 };
    const { result: r2 } = await flushNow(db, summarizer, "as46", [batch(1, [again])]);
    expect(r2.outcome).toBe("skipped-deduped");
    state = await stateOf(db, "as46");
    expect(state.aliases.get(`bash_10@${T0 + 2150}`)).toBe(`bash_9@${T0 + 150}`);
    expect([...state.records.values()].filter((r) => r.stored)).toHaveLength(1);
    expect((await captureRows(db, "as46")).map((c) => c.status)).toEqual(["stored", "deduped"]);
  });

  it("AS-56: a manual flush with nothing captured records one `empty` row with capturedBatches 0", async () => {
    const db = suite.db;
    const { result } = await flushNow(db, createDeterministicSummarizer(), "as56", []);
    expect(result).toMatchObject({ outcome: "empty" });
    const rows = await metricsRows(db, "as56");
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ trigger: "manual", outcome: "empty", capturedBatches: 0, processedBatches: 0 });
  });
});
