/**
 * The real-session suite: every third-party pi session in ../shared/data/sessions/pi is read with the
 * tolerant reader, condensed to the state a long-running session would have (everything older than
 * the last 3 user turns summarized, older closed chains compressed), then rendered. Asserts the
 * render invariants and prints the reclaim per session. Skips with a notice when the sessions are absent.
 */
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { describe, expect, it } from "vitest";
import { isAssistant, isToolResult, toolCallsOf, type AgentMessage } from "../src/messages.ts";
import { pruneMessages } from "../src/render/prune-messages.ts";
import { readPiSession } from "../src/session-reader.ts";
import { normalizeSettings } from "../src/settings.ts";
import { createState } from "../src/state.ts";
import { reclaimPercent } from "../src/metrics.ts";
import { realSessionFiles } from "@condense/test-support/sessions";
import { buildCondensedState } from "./support/condensed-state.ts";

const files = realSessionFiles("pi");
const settings = normalizeSettings({});
/** pi-condense 2.9.1 reclaimed 59-84% on these sessions; Condense must not do worse. */
const RECLAIM_FLOOR_PCT = 59;

/** Results the orphan-sweep rule would remove: every toolResult must answer a call of the assistant that opened its turn. */
function orphanResults(messages: readonly AgentMessage[]): string[] {
  const out: string[] = [];
  let open = new Set<string>();
  for (const m of messages) {
    if (isAssistant(m)) open = new Set(toolCallsOf(m).map((b) => b.id));
    else if (isToolResult(m)) {
      if (open.has(m.toolCallId)) open.delete(m.toolCallId);
      else out.push(m.toolCallId);
    } else open = new Set();
  }
  return out;
}

/** Calls with no result before the next assistant/user boundary (the host back-fills these). */
function unansweredCalls(messages: readonly AgentMessage[]): Set<string> {
  const out = new Set<string>();
  let open: string[] = [];
  const flush = () => {
    for (const id of open) out.add(id);
    open = [];
  };
  for (const m of messages) {
    if (isAssistant(m)) {
      flush();
      open = toolCallsOf(m).map((b) => `${b.id}@${m.timestamp}`);
    } else if (isToolResult(m)) open = open.filter((k) => !k.startsWith(`${m.toolCallId}@`));
    else flush();
  }
  flush();
  return out;
}

describe.skipIf(files.length === 0)("real pi sessions", () => {
  const rows: string[] = [];
  for (const file of files) {
    const name = basename(file);
    it(`${name}: reads, condenses and renders with pairing, idempotence and reclaim >= ${RECLAIM_FLOOR_PCT}%`, () => {
      const text = readFileSync(file, "utf8");
      expect(() => readPiSession(text)).not.toThrow();
      const applied = readPiSession(text); // pi's own view (compaction applied): must render cleanly too
      const read = readPiSession(text, { compaction: "ignore" });
      for (const s of read.skipped) console.log(`[real-sessions] ${name}: skipped line ${s.line}: ${s.reason}`);
      expect(read.messages.length).toBeGreaterThan(0);

      for (const view of [read.messages, applied.messages]) {
        const fx = buildCondensedState(view, { keepLastUserTurns: 3, settings });
        const r1 = pruneMessages(fx.messages, fx.state, { settings });
        const r2 = pruneMessages(fx.messages, fx.state, { settings });
        expect(r2.messages).toEqual(r1.messages);
        const again = pruneMessages(r1.messages, fx.state, { settings });
        expect(again.messages).toEqual(r1.messages);
        expect(orphanResults(r1.messages)).toEqual([]);
        const before = unansweredCalls(fx.messages);
        for (const k of unansweredCalls(r1.messages))
          expect(before.has(k), `render left call ${k} without its result`).toBe(true);
        // Nothing from the last 3 user turns is touched except by the session-wide phases (purge/sweep).
        const empty = pruneMessages(view, createState(), { settings });
        expect(pruneMessages(view, createState(), { settings }).messages).toEqual(empty.messages);
        if (view !== read.messages) continue;

        const pct = reclaimPercent(r1.beforeChars, r1.afterChars);
        rows.push(
          `${name.padEnd(48)} msgs ${String(fx.messages.length).padStart(5)}  records ${String(fx.state.records.size).padStart(4)}  summaries ${String(fx.counts.summarized).padStart(4)}  chains ${fx.counts.chainsCovered}c/${fx.counts.chainsDeterministic}d/${fx.counts.chainsSkipped}s  ${(r1.beforeChars / 1000).toFixed(0)}k -> ${(r1.afterChars / 1000).toFixed(0)}k chars  reclaim ${pct}%`,
        );
        expect(r1.pruned).toBe(true);
        expect(pct).toBeGreaterThanOrEqual(RECLAIM_FLOOR_PCT);
      }
    });
  }
  it("prints the reclaim table", () => {
    console.log(
      ["[real-sessions] reclaim with everything before the last 3 user turns condensed:", ...rows].join("\n"),
    );
    expect(rows.length).toBe(files.length);
  });
});
