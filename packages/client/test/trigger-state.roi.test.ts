import { normalizeSettings, type AgentMessage, type CapturedBatch } from "@condense/core";
import { A, F } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import { TriggerState, usageOfMessage } from "../src/trigger-state.ts";

const ROI = normalizeSettings({});
const EAGER = normalizeSettings({ flushPolicy: "eager" });
const reply = (ts: number) => F(ts);
const toolTurn = (ts: number) => A(ts, { id: `c${ts}`, name: "bash", args: {} });
const batch = (chars: number): CapturedBatch => ({
  turnIndex: 0,
  timestamp: 0,
  assistantText: "",
  toolCalls: [{ toolCallId: "x", toolName: "bash", args: {}, resultText: "r".repeat(chars), isError: false }],
});

/** An agent loop that never ends a reply: each request reads the previous prefix and writes its turn. */
function loop(t: TriggerState, settings = ROI, turns = 60, resultChars = 8000) {
  let context = 2000;
  const flushedAt: number[] = [];
  for (let i = 0; i < turns; i++) {
    t.messageEnd(settings, toolTurn(i), { input: 0, cacheRead: context, cacheWrite: 2100, output: 100 });
    context += 2100;
    t.pushed(batch(resultChars));
    const d = t.turnEnd(settings, 1, true, { tokens: context, contextWindow: 200_000 });
    if (d.flush) {
      flushedAt.push(i);
      expect(d.trigger).toBe("roi");
      t.flushStarted();
      t.landed(1500);
    }
  }
  return flushedAt;
}

describe("TriggerState under the roi policy", () => {
  it("a session that never ends a reply still flushes, once enough calls are left to pay the rewrite", () => {
    // Results small against each turn (250 of 2 100 tokens): the first flushes would not repay their rewrite.
    const flushedAt = loop(new TriggerState(), ROI, 60, 1000);
    expect(flushedAt.length).toBeGreaterThan(0);
    expect(flushedAt[0]).toBeGreaterThan(2);
    // Results that are most of the turn pay at once.
    expect(loop(new TriggerState())[0]).toBe(0);
  });

  it("eager never flushes inside the loop (today's behaviour); roi is off with pruneOn on-demand", () => {
    expect(loop(new TriggerState(), EAGER)).toEqual([]);
    expect(loop(new TriggerState(), normalizeSettings({ pruneOn: "on-demand" }))).toEqual([]);
  });

  it("eager flushes every reply; roi holds a reply whose flush saves less than it rewrites", () => {
    const e = new TriggerState();
    e.pushed(batch(400));
    expect(e.messageEnd(EAGER, reply(1), null).flush).toBe(true);
    const r = new TriggerState();
    r.reclaimShare = 0.02; // measured: flushes here reclaim little of the tail
    r.messageEnd(ROI, toolTurn(0), { input: 0, cacheRead: 0, cacheWrite: 50_000, output: 100 });
    r.pushed(batch(400));
    const d = r.messageEnd(ROI, reply(1), { input: 0, cacheRead: 50_100, cacheWrite: 8000, output: 50 });
    expect(d.flush).toBe(false);
    expect(d.roi?.value.nowUsd).toBeLessThan(0);
  });

  it("a reply with nothing pending asks for a flush when a chain it could compress pays, sizing chains only under roi", () => {
    const warmLoop = () => {
      const t = new TriggerState();
      for (let i = 0; i < 40; i++)
        t.messageEnd(ROI, toolTurn(i), { input: 0, cacheRead: 200 * i, cacheWrite: 200, output: 100 });
      return t;
    };
    const t = warmLoop();
    let sized = 0;
    const pays = () => {
      sized++;
      return [{ tailTokens: 3_000, reclaimTokens: 1_500 }];
    };
    const d = t.messageEnd(ROI, reply(100), { input: 0, cacheRead: 8_000, cacheWrite: 200, output: 100 }, pays);
    expect(t.pendingCount).toBe(0);
    expect(d).toMatchObject({ flush: true, trigger: "roi" });
    expect(d.roi!.inputs.reclaimTokens).toBe(1_500);
    expect(sized).toBe(1);
    // A chain far back that takes out little: no flush. Eager and a flush being built never size chains.
    const far = () => [{ tailTokens: 8_650, reclaimTokens: 300 }];
    expect(warmLoop().messageEnd(ROI, reply(100), null, far).flush).toBe(false);
    expect(warmLoop().messageEnd(EAGER, reply(100), null, pays).trigger).toBe("message-end");
    const busy = warmLoop();
    busy.flushing = true;
    expect(busy.messageEnd(ROI, reply(100), null, pays).flush).toBe(false);
    expect(sized).toBe(1);
  });

  it("the budget ceiling wins over the cost model", () => {
    const t = new TriggerState();
    t.pushed(batch(10));
    const d = t.turnEnd(normalizeSettings({ autoBudgetThreshold: 0.1 }), 1, true, {
      tokens: 50_000,
      contextWindow: 200_000,
    });
    expect(d).toMatchObject({ flush: true, trigger: "budget" });
  });

  it("a known cold request (model switch) makes a marginal flush pay", () => {
    const mk = () => {
      const t = new TriggerState();
      t.messageEnd(ROI, toolTurn(0), { input: 0, cacheRead: 0, cacheWrite: 40_000, output: 100 });
      t.messageEnd(ROI, toolTurn(1), { input: 0, cacheRead: 40_000, cacheWrite: 2000, output: 100 });
      t.pushed(batch(6000));
      return t;
    };
    const warm = mk();
    const w = warm.turnEnd(ROI, 1, true, null);
    const c = mk().markCold(ROI, "model-switch");
    expect(c.roi!.value.nowUsd).toBeGreaterThan(w.roi!.value.nowUsd);
    expect(c.flush).toBe(true);
    expect(c.trigger).toBe("roi");
  });

  it("reads pi-ai usage off an assistant message, and learns the measured reclaim share", () => {
    const m = {
      ...reply(5),
      provider: "anthropic",
      model: "claude",
      usage: {
        input: 3,
        output: 7,
        cacheRead: 1000,
        cacheWrite: 20,
        cost: { input: 0, output: 0, cacheRead: 0.0003, cacheWrite: 0.000075 },
      },
    } as unknown as AgentMessage;
    expect(usageOfMessage(m)).toMatchObject({
      input: 3,
      output: 7,
      cacheRead: 1000,
      cacheWrite: 20,
      model: "anthropic/claude",
      timestamp: 5,
    });
    const t = new TriggerState();
    t.messageEnd(ROI, toolTurn(0), { input: 0, cacheRead: 0, cacheWrite: 10_000, output: 0 });
    t.pushed(batch(40_000)); // 10k tokens of tail
    t.flushStarted();
    t.landed(9000);
    expect(t.reclaimShare).toBeCloseTo(0.5 * 0.5 + 0.5 * 0.9);
  });

  it("a context that shrinks (a flush landed in front of the pending work) moves the pending work's start with it", () => {
    const t = new TriggerState();
    t.messageEnd(ROI, toolTurn(0), { input: 0, cacheRead: 0, cacheWrite: 60_000, output: 0 });
    t.pushed(batch(8000)); // 2k tokens of results at 60k
    expect(t.pending.firstResultAt).toBe(60_000);
    // The next request carries an earlier flush: 40k tokens smaller, its 2k-token tail intact.
    t.messageEnd(ROI, toolTurn(1), { input: 0, cacheRead: 20_000, cacheWrite: 2100, output: 0 });
    expect(t.contextTokens).toBe(22_100);
    expect(t.pending.firstResultAt).toBe(60_000 - (62_000 - 22_100));
    expect(t.estimate().inputs.rewriteTokens).toBeGreaterThan(0);
  });

  it("a summarizer that delivered summaries and billed nothing (deterministic) is free for the cost model", () => {
    const t = new TriggerState();
    const state = {
      summaries: [{ id: "s" }],
      stats: { callCount: 0, totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0 },
    } as unknown as Parameters<TriggerState["calibrate"]>[0];
    t.calibrate(state);
    expect(t.summarizerUsdPerToken).toBe(0);
  });

  it("until the service reports a bill, the summarizer costs what the session's summarizerModel setting implies", () => {
    const named = normalizeSettings({ summarizerModel: "anthropic/claude-haiku-4-5" });
    const t = new TriggerState();
    t.messageEnd(ROI, toolTurn(0), { input: 0, cacheRead: 0, cacheWrite: 60_000, output: 0 });
    t.pushed(batch(8000));
    const free = t.turnEnd(ROI, 1, true, { tokens: 62_000, contextWindow: 200_000 }).roi!;
    const billed = t.turnEnd(named, 1, true, { tokens: 62_000, contextWindow: 200_000 }).roi!;
    expect(free.inputs.summarizerUsd).toBe(0);
    expect(billed.inputs.summarizerUsd).toBeGreaterThan(0);
    expect(t.estimate("turn-end", "anthropic/claude-haiku-4-5").inputs.summarizerUsd).toBe(billed.inputs.summarizerUsd);
    // A reported bill replaces the prior whatever the setting says.
    t.calibrate({
      summaries: [{ id: "s" }],
      stats: { callCount: 1, totalInputTokens: 1000, totalOutputTokens: 100, totalCost: 0.003 },
    } as unknown as Parameters<TriggerState["calibrate"]>[0]);
    expect(t.estimate().inputs.summarizerUsd).toBeCloseTo(2000 * 3e-6, 12);
  });
});
