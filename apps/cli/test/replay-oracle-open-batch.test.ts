/**
 * The oracle's condensed sizes come from one render after the last request with every turn flushed.
 * A session that ends on a call with no result (a SWE-agent `submit`) has an open tool batch at its
 * end, where the replay delivers no summary (pi never puts a message between a call and its result);
 * that final render must still carry the summaries, or no turn looks condensed and the oracle's best
 * schedule is to flush nothing whatever the session.
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
const dir = mkdtempSync(join(tmpdir(), "condense-open-batch-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the oracle on a session that ends on an unanswered call", () => {
  it("still sees the turns condensed", { timeout: 300_000 }, async () => {
    const lines = readFileSync(join(REPO_ROOT, "examples/sample-session.jsonl"), "utf8").trim().split("\n");
    // Cut the sample right after its last assistant message that calls a tool: that call has no result.
    let cut = lines.length - 1;
    while (cut > 0 && !/"role":"assistant".*"type":"toolCall"/.test(lines[cut]!)) cut--;
    const file = join(dir, "sample-open-batch.jsonl");
    writeFileSync(file, `${lines.slice(0, cut + 1).join("\n")}\n`);
    const session = loadSession(file);
    expect(session.messages.at(-1)?.role).toBe("assistant");
    // No automatic flush (as in the SWE-agent run where none pays): the final render is the only one
    // with summaries.
    const settings = { pruneOn: "on-demand", autoBudgetThreshold: null, budgetTurnDelta: null };
    const r = await replaySession(session, { price, settings, replayOracle: false });
    expect(r.flushes.requested).toBe(0);
    // Some schedule pays in the turn model (the full sample's oracle saves about 5 %).
    expect(r.oracle.oracleUsd).toBeLessThan(r.oracle.noneUsd);
    expect(r.oracle.oracleFlushes.length).toBeGreaterThan(0);
  });
});
