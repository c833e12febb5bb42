/**
 * The deterministic summarizer and the fidelity guard: unit behaviour on a crafted batch, then real
 * pi sessions (tool results grouped per assistant turn, as the worker would batch them) must keep
 * >= 99% of their key facts after the guard while staying far smaller than the raw outputs.
 */
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { realSessionFiles } from "@condense/test-support/sessions";
import { createDeterministicSummarizer, createSummarizer } from "../src/summarizer.ts";
import { applyFidelityGuard } from "../src/fidelity-guard.ts";
import { deterministicBatchBody } from "../src/deterministic.ts";
import { extractFacts } from "../src/facts.ts";
import { piSessionBatches } from "./support/pi-session-batches.ts";
import { call, sampleBatch } from "./support/fixtures.ts";

describe("deterministic summarizer", () => {
  it("writes one bullet per call with ref, tool, key args, outcome, size and the telling lines", async () => {
    const r = await createDeterministicSummarizer().summarizeBatch(sampleBatch(), { refs: ["t1", "t2"] });
    expect(r.bodySource).toBe("deterministic");
    expect(r.model).toBe("deterministic");
    expect(r.cost).toBe(0);
    expect(r.attempts).toEqual([]);
    expect(r.events).toEqual([{ kind: "deterministic-used", reason: "no-model" }]);
    const [read, bash] = r.text.split("\n- ");
    expect(read).toMatch(/^- `t1` read path=src\/a\/config\.ts → ok · \d+ chars, \d+ lines/);
    expect(bash).toMatch(/^`t2` bash `npm test` → error, exit 1 · /);
    expect(r.text).toContain("! AssertionError: expected 'a' to be 'b'");
    expect(r.text).toContain("✗ test/parse.test.ts > parses headers");
    expect(r.text).toContain("# Tests 1 failed | 40 passed (41)"); // whitespace runs squashed
    expect(r.text).toMatch(/\*\*[^*]+\*\*: `t1`, `t2`/);
    expect(r.text.length).toBeLessThan(r.rawChars);
    expect(r.fidelity.after).toBe(1);
  });

  it("is the embedded default when no model is configured", async () => {
    const r = await createSummarizer({}).summarizeBatch(sampleBatch(), { refs: ["t1", "t2"] });
    expect(r.bodySource).toBe("deterministic");
    expect((await createSummarizer({ summarizerModel: "default" }).fallbackState()).primary).toBeNull();
  });

  it("is byte-stable: the same batch gives the same text", () => {
    expect(deterministicBatchBody(sampleBatch(), ["t1", "t2"])).toBe(
      deterministicBatchBody(sampleBatch(), ["t1", "t2"]),
    );
  });

  it("keeps each bullet within its budget on a huge output", () => {
    const huge = call({
      toolName: "bash",
      args: { command: "find ." },
      resultText: Array.from({ length: 20_000 }, (_, i) => `./src/dir${i}/file${i}.ts`).join("\n"),
    });
    const body = deterministicBatchBody({ toolCalls: [huge] }, ["t1"]);
    expect(body.length).toBeLessThanOrEqual(1600);
    expect(body).toContain("./src/dir0/file0.ts");
    expect(body).toContain("last: ./src/dir19999/file19999.ts");
  });

  it("fuses chain summaries without a model: distinct bodies, footers dropped", async () => {
    const s = createDeterministicSummarizer();
    const a = (await s.summarizeBatch(sampleBatch("a"), { refs: ["t1", "t2"] })).text;
    const b = (await s.summarizeBatch(sampleBatch("b"), { refs: ["t3", "t4"] })).text;
    const r = await s.summarizeRange([a, b, a]);
    expect(r.bodySource).toBe("deterministic");
    expect(r.text.match(/`t1` read/g)).toHaveLength(1);
    expect(r.text).toContain("`t3` read");
    expect(r.text).not.toContain("---\n**");
  });
});

describe("fidelity guard", () => {
  const batch = sampleBatch();
  it("scores a summary that lost facts, appends them, and reports both scores", () => {
    const g = applyFidelityGuard({
      summary: "- `t1` read the config\n- `t2` tests failed",
      calls: batch.toolCalls,
      refs: ["t1", "t2"],
    });
    expect(g.report.before).toBeLessThan(0.5);
    expect(g.report.after).toBe(1);
    expect(g.report.appended).toBe(g.report.facts - g.report.presentBefore);
    expect(g.text).toContain("`src/a/config.ts`");
    expect(g.text).toContain("exit 1");
    expect(g.text).toContain("! AssertionError: expected 'a' to be 'b'");
  });

  it("counts identifiers the assistant referenced later as facts", () => {
    const calls = [
      call({
        toolName: "read",
        resultText: `function parseHeaderLine(x) {}\nconst unrelatedThing = 1;\n${"// padding\n".repeat(20)}`,
      }),
    ];
    const facts = extractFacts(calls, "I will fix parseHeaderLine next.");
    expect(facts.map((f) => f.value)).toEqual(["parseHeaderLine"]);
    expect(applyFidelityGuard({ summary: "- read a file", calls, laterText: "fix parseHeaderLine" }).text).toContain(
      "`parseHeaderLine`",
    );
  });

  it("never makes the summary larger than the raw outputs", () => {
    const calls = [
      call({
        toolName: "bash",
        isError: true,
        resultText: "Error: disk full at /var/lib/data/store.db\nexit code 2\n",
      }),
    ];
    const raw = calls[0]!.resultText.length;
    const g = applyFidelityGuard({ summary: "x".repeat(raw - 10), calls });
    expect(g.text.length).toBeLessThanOrEqual(raw);
    expect(g.report.after).toBeLessThan(1);
    expect(g.report.missing.length).toBeGreaterThan(0);
  });

  it("leaves a complete summary untouched (guarding twice changes nothing)", () => {
    const complete = applyFidelityGuard({
      summary: deterministicBatchBody(batch, ["t1", "t2"]),
      calls: batch.toolCalls,
      refs: ["t1", "t2"],
    }).text;
    const g = applyFidelityGuard({ summary: complete, calls: batch.toolCalls, refs: ["t1", "t2"] });
    expect(g.text).toBe(complete);
    expect(g.report).toMatchObject({ before: 1, after: 1, appended: 0 });
  });
});

const sessions = realSessionFiles("pi");
describe.skipIf(sessions.length === 0)("real pi sessions through the deterministic summarizer", () => {
  it.each(sessions.map((f) => [basename(f), f]))(
    "%s: fidelity >= 0.99 after the guard, far smaller than raw",
    async (_name, file) => {
      const summarizer = createDeterministicSummarizer();
      const batches = piSessionBatches(file);
      expect(batches.length).toBeGreaterThan(0);
      let facts = 0,
        kept = 0,
        raw = 0,
        summary = 0;
      for (const [i, { batch, laterText }] of batches.entries()) {
        const refs = batch.toolCalls.map((_, j) => `t${i * 100 + j + 1}`);
        const r = await summarizer.summarizeBatch(batch, { refs, laterText });
        facts += r.fidelity.facts;
        kept += r.fidelity.presentAfter;
        raw += r.rawChars;
        summary += r.text.length;
        expect(r.text.length).toBeLessThanOrEqual(r.rawChars);
      }
      expect(facts).toBeGreaterThan(0);
      expect(kept / facts).toBeGreaterThanOrEqual(0.99);
      expect(summary / raw).toBeLessThan(0.35);
    },
  );
});
