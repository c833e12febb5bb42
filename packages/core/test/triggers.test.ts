import { describe, expect, it } from "vitest";
import { rescanBranch } from "../src/capture.ts";
import {
  agentEndStatus,
  budgetTokenThreshold,
  decideManual,
  decideMessageEnd,
  decideRearm,
  decideTurnEnd,
  flushTriggerLabel,
  isBudgetHit,
  isDeltaHit,
  runRearmProbe,
  usageFraction,
  type TurnEndGateInput,
} from "../src/triggers.ts";
import { DEFAULT_SETTINGS, normalizeSettings } from "../src/settings.ts";

/** Today's CAP-TRIGGER-3 behaviour: every text-only reply flushes. */
const EAGER = normalizeSettings({ flushPolicy: "eager" });
import { createState } from "../src/state.ts";
import { footerWidgetText } from "../src/texts.ts";
import { A, F, R, U } from "@condense/test-support/messages";

describe("budget threshold (CAP-TRIGGER-5)", () => {
  it("AS-47: 1M @0.4 fires at 300,000; 200k @0.4 at 80,000; 256k @0.9 at 230,400", () => {
    const hit = (tokens: number, contextWindow: number, t: number) => isBudgetHit({ tokens, contextWindow }, t);
    expect(hit(300_000, 1_000_000, 0.4)).toBe(true);
    expect(hit(299_999, 1_000_000, 0.4)).toBe(false);
    expect(hit(80_000, 200_000, 0.4)).toBe(true);
    expect(hit(79_999, 200_000, 0.4)).toBe(false);
    expect(hit(230_400, 256_000, 0.9)).toBe(true);
    expect(hit(230_399, 256_000, 0.9)).toBe(false);
    expect(budgetTokenThreshold(1_000_000, 0.4)).toBe(300_000);
  });
  it("is off for a bad threshold, missing usage, null tokens or a non-positive window", () => {
    expect(isBudgetHit({ tokens: 1e9, contextWindow: 1000 }, null)).toBe(false);
    expect(isBudgetHit({ tokens: 1e9, contextWindow: 1000 }, 0)).toBe(false);
    expect(isBudgetHit({ tokens: 1e9, contextWindow: 1000 }, 1.5)).toBe(false);
    expect(isBudgetHit(undefined, 0.5)).toBe(false);
    expect(isBudgetHit({ tokens: null, contextWindow: 1000 }, 0.5)).toBe(false);
    expect(isBudgetHit({ tokens: 10, contextWindow: 0 }, 0.5)).toBe(false);
  });
});

describe("budget delta (CAP-TRIGGER-6)", () => {
  it("AS-48: 1M @0.1: 100k->130k fires, 100k->120k does not, first turn never, 600k = 2.0", () => {
    const f = (tokens: number) => usageFraction({ tokens, contextWindow: 1_000_000 });
    expect(isDeltaHit(f(130_000), f(100_000), 0.1)).toBe(true);
    expect(isDeltaHit(f(120_000), f(100_000), 0.1)).toBe(false);
    expect(isDeltaHit(f(900_000), null, 0.1)).toBe(false);
    expect(f(600_000)).toBe(2);
    expect(usageFraction({ tokens: 20_000, contextWindow: 200_000 })).toBe(0.1);
  });
});

const gate = (over: Partial<TurnEndGateInput>): TurnEndGateInput => ({
  enabled: true,
  toolResultCount: 1,
  pushedThisTurn: true,
  pendingCount: 1,
  rearmed: false,
  flushing: false,
  usage: { tokens: 10_000, contextWindow: 200_000 },
  previousFraction: null,
  settings: { autoBudgetThreshold: 0.5, budgetTurnDelta: null },
  ...over,
});

describe("turn_end gate (CAP-TRIGGER-4)", () => {
  it("flushes with `budget` when the threshold is crossed and there is pending work", () => {
    const d = decideTurnEnd(gate({ usage: { tokens: 150_000, contextWindow: 200_000 }, pendingCount: 2 }));
    expect(d).toMatchObject({ flush: true, trigger: "budget", nextPreviousFraction: 0.75 });
    expect(d.notice).toBe("condense: context budget reached — condensing 2 pending turn(s)");
  });
  it("flushes with `delta` on a jump, and stores the fraction either way", () => {
    const settings = { autoBudgetThreshold: null, budgetTurnDelta: 0.1 };
    const d = decideTurnEnd(
      gate({ settings, previousFraction: 0.2, usage: { tokens: 100_000, contextWindow: 200_000 } }),
    );
    expect(d).toMatchObject({ flush: true, trigger: "delta", nextPreviousFraction: 0.5 });
    expect(d.notice).toContain("context jumped this turn");
    const quiet = decideTurnEnd(
      gate({ settings, previousFraction: 0.45, usage: { tokens: 100_000, contextWindow: 200_000 } }),
    );
    expect(quiet).toMatchObject({ flush: false, nextPreviousFraction: 0.5, evaluated: true });
  });
  it("keeps the previous fraction on a null-tokens turn and never flushes while flushing", () => {
    expect(
      decideTurnEnd(gate({ usage: { tokens: null, contextWindow: 200_000 }, previousFraction: 0.3 }))
        .nextPreviousFraction,
    ).toBe(0.3);
    expect(decideTurnEnd(gate({ usage: { tokens: 190_000, contextWindow: 200_000 }, flushing: true })).flush).toBe(
      false,
    );
  });
  it("AS-52: not rearmed, turn 1 queued a batch, turn 2's calls all protected and usage over threshold: no flush", () => {
    const settings = normalizeSettings({ protectedTools: ["todowrite"], autoBudgetThreshold: 0.5 });
    // turn 2 delivered results, but live capture pushed nothing (all protected); the queue still holds turn 1.
    const d = decideTurnEnd(
      gate({
        settings,
        toolResultCount: 1,
        pushedThisTurn: false,
        pendingCount: 1,
        usage: { tokens: 190_000, contextWindow: 200_000 },
        previousFraction: 0.1,
      }),
    );
    expect(d).toEqual({ flush: false, nextPreviousFraction: 0.1, evaluated: false });
  });
  it("returns early when disabled or without results and not rearmed", () => {
    expect(decideTurnEnd(gate({ enabled: false, usage: { tokens: 190_000, contextWindow: 200_000 } })).flush).toBe(
      false,
    );
    expect(
      decideTurnEnd(gate({ toolResultCount: 0, usage: { tokens: 190_000, contextWindow: 200_000 } })).evaluated,
    ).toBe(false);
  });
});

describe("reload rearm (CAP-TRIGGER-9) and the rearmed path", () => {
  it("AS-49: reload with completed unflushed work arms; next result-free turn flushes `rearmed`; a repeat does nothing; the reply flushes", () => {
    const branch = [U(1), A(10, "bash_1"), R(11, "bash_1", "x".repeat(2000))];
    const probe = runRearmProbe(() => rescanBranch(branch, createState(), DEFAULT_SETTINGS));
    const { rearmed } = decideRearm(true, probe);
    expect(rearmed).toBe(true);
    const usage = { tokens: 190_000, contextWindow: 200_000 };
    const first = decideTurnEnd(gate({ toolResultCount: 0, pushedThisTurn: false, pendingCount: 0, rearmed, usage }));
    expect(first).toMatchObject({ flush: true, trigger: "rearmed" });
    expect(first.notice).toBe("condense: context budget reached — condensing work recovered after reload");
    // The flush clears the flag at its start, whatever the outcome.
    const again = decideTurnEnd(
      gate({ toolResultCount: 0, pushedThisTurn: false, pendingCount: 0, rearmed: false, usage }),
    );
    expect(again.flush).toBe(false);
    const reply = decideMessageEnd(F(20), EAGER);
    expect(reply).toMatchObject({ flush: true, trigger: "message-end" });
  });
  it("AS-51: a throwing rearm probe leaves the flag down and reports, never throws; result-free turns then never flush", () => {
    const probe = runRearmProbe(() => {
      throw new Error("branch unreadable");
    });
    expect(decideRearm(true, probe)).toEqual({
      rearmed: false,
      error: "condense: reload rearm probe failed: branch unreadable",
    });
    expect(
      decideRearm(false, { ok: true, batches: [{ turnIndex: 0, timestamp: 0, assistantText: "", toolCalls: [] }] })
        .rearmed,
    ).toBe(false);
    const usage = { tokens: 190_000, contextWindow: 200_000 };
    expect(
      decideTurnEnd(gate({ toolResultCount: 0, pushedThisTurn: false, pendingCount: 0, rearmed: false, usage })).flush,
    ).toBe(false);
  });
  it("AS-50: agent_end status shows pending, else recovered-after-reload in the footer", () => {
    expect(agentEndStatus(true, 2, true)).toBe("condense: 2 pending");
    expect(agentEndStatus(true, 0, true)).toBe("condense: recovered pending (reload)");
    expect(agentEndStatus(true, 0, false)).toBeNull();
    expect(footerWidgetText(true, agentEndStatus(true, 0, true)!)).toBe("\u2502 condense: recovered pending (reload)");
  });
});

describe("message_end and manual (CAP-TRIGGER-3/7/8)", () => {
  it("only a text-only assistant reply in agent-message mode flushes, with the message threaded in", () => {
    const reply = F(5);
    expect(decideMessageEnd(reply, EAGER)).toEqual({ flush: true, trigger: "message-end", closingMessage: reply });
    expect(decideMessageEnd(A(5, "bash_1"), EAGER).flush).toBe(false);
    expect(decideMessageEnd(U(5), EAGER).flush).toBe(false);
    expect(decideMessageEnd(reply, normalizeSettings({ flushPolicy: "eager", pruneOn: "on-demand" })).flush).toBe(
      false,
    );
    expect(decideMessageEnd(reply, normalizeSettings({ flushPolicy: "eager", enabled: false })).flush).toBe(false);
    // Under the default `roi` policy a reply is only an opportunity (decideRoiGate decides).
    expect(decideMessageEnd(reply, DEFAULT_SETTINGS).flush).toBe(false);
  });
  it("manual runs even with nothing captured, with a notice; an unlabelled flush is manual", () => {
    expect(decideManual(true, 0)).toEqual({
      run: true,
      trigger: "manual",
      notice: "condense: nothing pending — no batches to summarize",
    });
    expect(decideManual(true, 3)).toEqual({ run: true, trigger: "manual" });
    expect(decideManual(false, 3).run).toBe(false);
    expect(flushTriggerLabel(undefined)).toBe("manual");
    expect(flushTriggerLabel("delta")).toBe("delta");
  });
});
