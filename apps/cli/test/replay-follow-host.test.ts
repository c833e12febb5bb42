/**
 * The "as recorded" comparison drives a client on what the host actually sent: where the host
 * compacted, the agent's branch becomes the host's compacted context, and Condense is billed on its
 * render of that branch against the host's own requests. The README's sample with a pi `compaction`
 * entry put in before its fifth prompt (nothing kept but the host's summary).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REPO_ROOT } from "@condense/test-support/sessions";
import { afterAll, describe, expect, it } from "vitest";
import { loadSession } from "../src/replay/load-session.ts";
import { priceOf } from "../src/replay/price-model.ts";
import { replaySession } from "../src/replay/replay-session.ts";

const price = priceOf("anthropic/claude-sonnet-4-5");
const dir = mkdtempSync(join(tmpdir(), "condense-follow-host-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The sample with a host compaction in front of the prompt that starts with `before`. */
function compactedSample(before: string): string {
  const lines = readFileSync(join(REPO_ROOT, "examples/sample-session.jsonl"), "utf8").trim().split("\n");
  const at = lines.findIndex((l) => l.includes(before));
  const prompt = JSON.parse(lines[at]!) as { id: string; parentId: string; timestamp: string };
  const compaction = {
    type: "compaction",
    id: "c0mpact1",
    parentId: prompt.parentId,
    timestamp: prompt.timestamp,
    summary: "The host's summary of the first four scenarios.",
    tokensBefore: 9000,
  };
  lines.splice(at, 1, JSON.stringify(compaction), JSON.stringify({ ...prompt, parentId: compaction.id }));
  const file = join(dir, "sample-compacted.jsonl");
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

describe("the replay on the host's compacted context", () => {
  const file = compactedSample("SCENARIO P5");

  it("bills what the host sent, and delivers no summary of the work the host dropped", {
    timeout: 300_000,
  }, async () => {
    const session = loadSession(file);
    expect(session.compactions).toHaveLength(1);
    const fullCount = session.compactions[0]!.fullCount;
    // Eager flushes at the reply before the compaction: its summaries cover results the host dropped.
    const settings = { flushPolicy: "eager" };
    const full = await replaySession(session, { price, settings, replayOracle: false });
    const host = await replaySession(session, { price, settings, replayOracle: false, followHostCompactions: true });
    const after = host.calls.findIndex((c) => c.messages >= fullCount);
    expect(after).toBeGreaterThan(0);
    // Before the compaction both replays are the same.
    expect(host.calls.slice(0, after)).toEqual(full.calls.slice(0, after));
    // The first request after it is the host's compacted context, on either side: no summary of the
    // first four scenarios comes back into it (the extension delivers a summary only when it covers a
    // result the agent's context holds).
    const first = host.calls[after]!;
    expect(first.rawTokens).toBeLessThan(full.calls[after]!.rawTokens / 2);
    expect(first.condensedTokens).toBe(first.rawTokens);
    // The baseline of that replay is the host's own requests: the "as recorded" bill.
    expect(host.cost.raw.costUsd).toBeCloseTo(full.cost.recorded.costUsd, 9);
  });

  it("the report's as-recorded saving is that replay's", { timeout: 300_000 }, async () => {
    const session = loadSession(file);
    const r = await replaySession(session, { price, replayOracle: false });
    const host = await replaySession(session, { price, replayOracle: false, followHostCompactions: true });
    expect(r.cost.hostCompactions).toBe(1);
    expect(r.cost.condensedOnRecorded.costUsd).toBeCloseTo(host.cost.condensed.costUsd, 9);
    expect(r.cost.vsRecorded.baselineUsd).toBeCloseTo(r.cost.recorded.costUsd, 9);
    expect(r.cost.vsRecorded.savedUsd).toBeCloseTo(
      r.cost.recorded.costUsd - host.cost.condensed.costUsd - host.cost.summarizerUsd,
      9,
    );
    // Without a compaction there is no second replay: the same bill against both baselines.
    const plain = await replaySession(loadSession(join(REPO_ROOT, "examples/sample-session.jsonl")), {
      price,
      replayOracle: false,
    });
    expect(plain.cost.vsRecorded).toEqual(plain.cost.vsNoCompaction);
  });
});
