import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, normalizeSettings } from "../src/settings.ts";

describe("settings normalize (CAP-CFG-2/3)", () => {
  it("AS-58: grace 0 / -1 / 2.7 -> 0 / 3 / 2; autoBudgetThreshold 80 -> null; unknown block survives load->save", () => {
    expect(normalizeSettings({ recoveryGraceTurns: 0 }).recoveryGraceTurns).toBe(0);
    expect(normalizeSettings({ recoveryGraceTurns: -1 }).recoveryGraceTurns).toBe(3);
    expect(normalizeSettings({ recoveryGraceTurns: 2.7 }).recoveryGraceTurns).toBe(2);
    expect(normalizeSettings({ autoBudgetThreshold: 80 }).autoBudgetThreshold).toBeNull();
    expect(normalizeSettings({ autoBudgetThreshold: 0.8 }).autoBudgetThreshold).toBe(0.8);
    const thinkingStrip = { enabled: true, keepLast: 2, nested: { x: [1, 2] } };
    const loaded = normalizeSettings({ thinkingStrip, remindUnprunedCount: 7 });
    const saved = JSON.parse(JSON.stringify(loaded));
    expect(saved.thinkingStrip).toEqual(thinkingStrip);
    expect(normalizeSettings(saved).thinkingStrip).toEqual(thinkingStrip);
    expect(saved.remindUnprunedCount).toBe(7);
  });

  it("deep-merges nested objects on purpose: a partial block keeps the defaults of its missing fields", () => {
    const s = normalizeSettings({ chainCompression: { rollingWindow: 5 }, purgeErrors: { enabled: false, extra: 1 } });
    expect(s.chainCompression).toEqual({ ...DEFAULT_SETTINGS.chainCompression, rollingWindow: 5 });
    expect(s.purgeErrors).toMatchObject({ enabled: false, cooldownTurns: 2, minArgChars: 500, extra: 1 });
  });

  it("never throws and falls back to defaults on junk", () => {
    for (const junk of [
      null,
      undefined,
      42,
      "x",
      [],
      { enabled: "yes", minBatchChars: NaN, spillThreshold: -4, protectedPaths: "x" },
    ]) {
      const s = normalizeSettings(junk);
      expect(s.minBatchChars).toBe(1000);
      expect(s.spillThreshold).toBe(65_536);
      expect(Array.isArray(s.protectedPaths)).toBe(true);
    }
    expect(normalizeSettings({ protectedPaths: [] }).protectedPaths).toEqual([]);
    expect(normalizeSettings({ batchingMode: "bogus" }).batchingMode).toBe("turn");
  });

  it("the economics settings: roi by default, eager on request, shadow off, a positive cache TTL", () => {
    const d = normalizeSettings({});
    expect([d.flushPolicy, d.shadowMode, d.cacheTtlMs]).toEqual(["roi", false, 300_000]);
    const s = normalizeSettings({ flushPolicy: "eager", shadowMode: true, cacheTtlMs: 3_600_000 });
    expect([s.flushPolicy, s.shadowMode, s.cacheTtlMs]).toEqual(["eager", true, 3_600_000]);
    const bad = normalizeSettings({ flushPolicy: "sometimes", shadowMode: "yes", cacheTtlMs: -5 });
    expect([bad.flushPolicy, bad.shadowMode, bad.cacheTtlMs]).toEqual(["roi", false, 300_000]);
  });
});
