import { describe, expect, it } from "vitest";
import { warmReuse } from "../support/warm-reuse.ts";
import type { RoiInput } from "../../src/economics/roi-policy.ts";
import { DEFAULT_SETTINGS, normalizeSettings } from "../../src/settings.ts";
import { decideRoiGate } from "../../src/triggers.ts";
import { A, F } from "@condense/test-support/messages";

const warm = warmReuse();
const nothingPending: Omit<RoiInput, "chains"> = {
  reuse: warm,
  pending: { resultTokens: 0, toolCalls: 0, firstResultAt: 0 },
  contextTokens: 9_000,
  at: "message-end",
  coldNow: false,
  summarizerUsdPerToken: 0,
};
// A chain just closed by the reply: most of its span goes; one far back that takes out little.
const pays = { tailTokens: 3_000, reclaimTokens: 1_500 };
const farBack = { tailTokens: 8_650, reclaimTokens: 300 };
const gate = (over: Partial<Parameters<typeof decideRoiGate>[0]> = {}) =>
  decideRoiGate({
    settings: DEFAULT_SETTINGS,
    pendingCount: 0,
    flushing: false,
    closingMessage: F(9),
    roi: nothingPending,
    ...over,
  });

describe("the roi gate values the chains a reply's flush would compress", () => {
  it("asks for a flush with nothing pending when a chain pays, with the reply threaded in", () => {
    const d = gate({ chains: [pays] });
    expect(d.flush).toBe(true);
    expect(d.trigger).toBe("roi");
    expect(d.closingMessage).toEqual(F(9));
    expect(d.decision!.value.nowUsd).toBeGreaterThan(0);
    expect(d.decision!.inputs.reclaimTokens).toBe(1_500);
  });

  it("never asks when no chain pays, nothing is pending, or nothing was sized", () => {
    expect(gate({ chains: [farBack] }).flush).toBe(false);
    expect(gate({ chains: [farBack] }).decision!.value.nowUsd).toBeLessThanOrEqual(0);
    expect(gate({ chains: [] })).toEqual({ flush: false });
    expect(gate()).toEqual({ flush: false });
  });

  it("a chain that pays lifts pending work that alone would not", () => {
    const tiny = { ...nothingPending, pending: { resultTokens: 40, toolCalls: 1, firstResultAt: 8_900 } };
    expect(gate({ pendingCount: 1, roi: tiny }).flush).toBe(false);
    expect(gate({ pendingCount: 1, roi: tiny, chains: [pays] }).flush).toBe(true);
  });

  it("stays shut while a flush is being built, for a tool-call message, and under eager", () => {
    expect(gate({ chains: [pays], flushing: true }).flush).toBe(false);
    expect(gate({ chains: [pays], closingMessage: A(9, "bash_1") }).flush).toBe(false);
    expect(gate({ chains: [pays], settings: normalizeSettings({ flushPolicy: "eager" }) }).flush).toBe(false);
  });
});
