/**
 * The replay bills the requests the session made and no other: a request is known to have been made
 * when its answer is recorded. A session file that goes on after its last answer (a pi display
 * message, a user's `!` command, a SWE-agent `submit` observation) made no request after it, and its
 * bill, its oracle and its policy's flushes are those of the same session without that tail.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { isAssistant } from "@condense/core";
import { REPO_ROOT } from "@condense/test-support/sessions";
import { afterAll, describe, expect, it } from "vitest";
import { loadSession } from "../src/replay/load-session.ts";
import { priceOf } from "../src/replay/price-model.ts";
import { replaySession } from "../src/replay/replay-session.ts";

const price = priceOf("anthropic/claude-sonnet-4-5");
const dir = mkdtempSync(join(tmpdir(), "condense-last-request-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const sampleLines = () => readFileSync(join(REPO_ROOT, "examples/sample-session.jsonl"), "utf8").trim().split("\n");

function write(name: string, lines: readonly string[]): string {
  const file = join(dir, name);
  writeFileSync(file, `${lines.join("\n")}\n`);
  return file;
}

describe("the replay's last request", () => {
  it("is the session's last answered one: a display message after the last reply bills nothing", {
    timeout: 300_000,
  }, async () => {
    const lines = sampleLines();
    const last = JSON.parse(lines.at(-1)!) as { id: string; timestamp: string };
    // What kimchi's file ends with: pi's custom display message after the last reply, ten minutes on.
    const display = {
      type: "custom_message",
      customType: "prompt-summary",
      content: [{ type: "text", text: "Prompt summary (115m 1s)" }],
      display: true,
      id: "ffff0001",
      parentId: last.id,
      timestamp: new Date(Date.parse(last.timestamp) + 600_000).toISOString(),
    };
    const plain = loadSession(write("plain.jsonl", lines));
    const tailed = loadSession(write("tailed.jsonl", [...lines, JSON.stringify(display)]));
    expect(tailed.messages.length).toBe(plain.messages.length + 1);
    const a = await replaySession(plain, { price });
    const b = await replaySession(tailed, { price });
    expect(b.calls.length).toBe(plain.messages.filter(isAssistant).length);
    expect(b.calls.length).toBe(a.calls.length);
    expect(b.cost.raw.costUsd).toBeCloseTo(a.cost.raw.costUsd, 12);
    expect(b.cost.condensed.costUsd).toBeCloseTo(a.cost.condensed.costUsd, 12);
    expect(b.flushAtCalls).toEqual(a.flushAtCalls);
    // The oracle is computed on the same requests.
    expect(b.oracle.noneUsd).toBeCloseTo(a.oracle.noneUsd, 12);
    expect(b.oracle.oracleFlushes).toEqual(a.oracle.oracleFlushes);
  });

  it("a session that ends on tool results (a SWE-agent submit's observation) ends on the request that called the tool", {
    timeout: 300_000,
  }, async () => {
    const lines = sampleLines();
    // Cut the sample after the results of its last tool batch, before the reply that answered them.
    let cut = lines.length - 1;
    while (cut > 0 && !/"role":"toolResult"/.test(lines[cut]!)) cut--;
    const session = loadSession(write("results-last.jsonl", lines.slice(0, cut + 1)));
    expect(session.messages.at(-1)?.role).toBe("toolResult");
    const r = await replaySession(session, { price, replayOracle: false });
    expect(r.calls.length).toBe(session.messages.filter(isAssistant).length);
    expect(r.cost.raw.requests).toBe(r.calls.length);
  });
});
