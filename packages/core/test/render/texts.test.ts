import { describe, expect, it } from "vitest";
import { footerWidgetText, formatCount, statusLineText } from "../../src/texts.ts";

describe("footer status text", () => {
  it("AS-57 reclaim, diag counters, disabled, status line off", () => {
    const on = statusLineText({
      enabled: true,
      reclaim: { beforeChars: 368_000, afterChars: 56_000 },
      diag: { u: 1, m: 0, o: 2, b: 0 },
    });
    expect(footerWidgetText(true, on)).toBe("\u2502 condense: ON \u00b7 92.0k->14.0k (-85%) \u00b7 diag u1/o2");
    expect(footerWidgetText(true, statusLineText({ enabled: false, reclaim: { beforeChars: 1, afterChars: 1 } }))).toBe(
      "\u2502 condense: OFF",
    );
    expect(footerWidgetText(false, on)).toBeNull();
  });

  it("shows no reclaim without a positive measurement, and the metrics suffix only with a frontier gap", () => {
    expect(statusLineText({ enabled: true, reclaim: { beforeChars: 0, afterChars: 0 } })).toBe("condense: ON");
    const metrics = { openCycleThinkingTokens: 12_345, frontierGapTokens: 2_500_000, largestChainSharePct: 97 };
    expect(statusLineText({ enabled: true, diag: { u: 0, m: 3, o: 0, b: 4 }, metrics })).toBe(
      "condense: ON \u00b7 diag m3/b4 \u00b7 think 12.3k \u00b7 gap 2.5M \u00b7 chain 97%",
    );
    expect(statusLineText({ enabled: true, metrics: { ...metrics, frontierGapTokens: 0 } })).toBe("condense: ON");
    expect(statusLineText({ enabled: true, reclaim: { beforeChars: 400, afterChars: 800 } })).toBe(
      "condense: ON \u00b7 100->200 (-0%)",
    );
  });

  it("formats counts as integer, k and M", () => {
    expect([999, 1000, 14_000, 999_999, 1_000_000].map(formatCount)).toEqual([
      "999",
      "1.0k",
      "14.0k",
      "1000.0k",
      "1.0M",
    ]);
  });
});
