/**
 * The roi gate's answers are remembered while nothing it reads changes (trigger-state.ts). On a
 * generated session (tool turns with and without results, replies, usage reports, host compactions,
 * cold moments, flushes landing), every decision the client returns must be the one the gate computes
 * afresh from the same state, and the sequence of flushes must be the same.
 */
import {
  decideRoiGate,
  normalizeSettings,
  type AgentMessage,
  type CapturedBatch,
  type CondenseSettings,
} from "@condense/core";
import { describe, expect, it } from "vitest";
import { TriggerState, type TriggerDecision } from "../src/trigger-state.ts";

/** A small seeded PRNG (mulberry32): the same session on every run. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const assistant = (ts: number, tool: boolean): AgentMessage =>
  ({
    role: "assistant",
    content: tool ? [{ type: "toolCall", id: `c${ts}`, name: "bash", arguments: {} }] : [{ type: "text", text: "ok" }],
    timestamp: ts,
  }) as AgentMessage;
const batch = (calls: number, chars: number): CapturedBatch => ({
  turnIndex: 0,
  timestamp: 0,
  assistantText: "",
  toolCalls: Array.from({ length: calls }, (_, i) => ({
    toolCallId: `x${i}`,
    toolName: "bash",
    args: {},
    resultText: "r".repeat(chars),
    isError: false,
  })),
});

/** The gate computed from scratch on the state as it is right after `t` decided. */
function fresh(t: TriggerState, settings: CondenseSettings, at: "turn-end" | "message-end", closing?: AgentMessage) {
  return decideRoiGate({
    settings,
    pendingCount: t.pendingCount,
    flushing: t.flushing,
    ...(closing ? { closingMessage: closing } : {}),
    roi: {
      reuse: t.reuse,
      pending: t.pending,
      contextTokens: t.contextTokens,
      at,
      coldNow: t.coldReason !== null,
      reclaimShare: t.reclaimShare,
      summarizerUsdPerToken: t.summarizerUsdPerToken,
    },
  });
}

/** Replays a generated session; returns the flushes (event index, trigger) and how many gate answers were checked. */
function replay(seed: number, settings: CondenseSettings) {
  const r = rng(seed);
  const t = new TriggerState();
  const flushes: string[] = [];
  let checked = 0;
  let context = 3000;
  const check = (d: TriggerDecision, at: "turn-end" | "message-end", closing?: AgentMessage) => {
    // A budget, delta or rearm flush never reached the gate.
    if (d.flush && d.trigger !== "roi") return;
    const g = fresh(t, settings, at, closing);
    expect(d.flush).toBe(g.flush);
    expect(d.roi).toEqual(g.decision);
    if (d.flush) expect(t.lastRoi).toEqual(g.decision);
    checked++;
  };
  const onFlush = (i: number, d: TriggerDecision) => {
    if (!d.flush) return;
    flushes.push(`${i}:${d.trigger}`);
    t.flushing = true;
    t.flushStarted();
    t.flushing = false;
    // Most flushes land before the next request; some take longer.
    if (r() < 0.8) t.landed(Math.round(r() * 20_000));
  };
  for (let i = 0; i < 400; i++) {
    const x = r();
    const tool = x < 0.75;
    const m = assistant(i, tool);
    // Usage arrives on most messages; a reply or a tool turn alike.
    const usage =
      r() < 0.85
        ? { input: 200, cacheRead: r() < 0.8 ? context : 0, cacheWrite: 1500, output: 150, timestamp: i }
        : null;
    const md = t.messageEnd(settings, m, usage);
    if (!tool) check(md, "message-end", m);
    onFlush(i, md);
    context += 1650;
    const results = tool ? Math.floor(r() * 3) : 0;
    const pushed = results > 0 && r() < 0.9;
    if (pushed) t.pushed(batch(results, Math.floor(r() * 12_000)));
    // Repeated opportunities with nothing new in between (the memo's case): a second turn end, a cold moment.
    const turns = r() < 0.3 ? 2 : 1;
    for (let k = 0; k < turns; k++) {
      const tokens = r() < 0.03 ? null : context;
      const d = t.turnEnd(settings, results, pushed && k === 0, { tokens, contextWindow: 200_000 });
      check(d, "turn-end");
      onFlush(i, d);
    }
    if (r() < 0.05) {
      const d = t.markCold(settings, r() < 0.5 ? "model-switch" : "resume");
      check(d, "message-end");
      onFlush(i, d);
    }
    if (r() < 0.05)
      t.calibrate({ stats: { callCount: 1, totalInputTokens: 1000, totalCost: r() * 0.01 }, summaries: [] } as never);
  }
  return { flushes, checked };
}

describe("TriggerState remembers the roi gate's answer while its inputs stay the same", () => {
  it.each([1, 2, 3, 7, 42])("generated session %i: every decision equals the gate computed afresh", (seed) => {
    const { flushes, checked } = replay(seed, normalizeSettings({}));
    expect(checked).toBeGreaterThan(400);
    expect(flushes.filter((f) => f.endsWith(":roi")).length).toBeGreaterThan(0);
    // The same session decides the same flushes on a second run (no state outside the instance).
    expect(replay(seed, normalizeSettings({})).flushes).toEqual(flushes);
  });

  it("a settings change between two identical opportunities is seen (eager, on-demand)", () => {
    const t = new TriggerState();
    t.pushed(batch(1, 40_000));
    const roi = normalizeSettings({});
    expect(t.turnEnd(roi, 1, true, { tokens: 60_000, contextWindow: 200_000 }).flush).toBe(true);
    const u = new TriggerState();
    u.pushed(batch(1, 40_000));
    expect(
      u.turnEnd(normalizeSettings({ flushPolicy: "eager" }), 1, true, { tokens: 60_000, contextWindow: 200_000 }).flush,
    ).toBe(false);
    expect(u.turnEnd(roi, 1, false, { tokens: 60_000, contextWindow: 200_000 }).flush).toBe(true);
    expect(
      u.turnEnd(normalizeSettings({ pruneOn: "on-demand" }), 1, false, { tokens: 60_000, contextWindow: 200_000 })
        .flush,
    ).toBe(false);
  });
});
