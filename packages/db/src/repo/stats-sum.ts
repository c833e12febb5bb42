/** Adding one flush's (or compression's) usage to a session's SummarizerStats snapshot. */
import type { SummarizerStats } from "@condense/core";

export function hasStats(s: Partial<SummarizerStats> | undefined): boolean {
  return !!s && Object.values(s).some((v) => typeof v === "number" && v !== 0);
}

export function addStats(base: SummarizerStats, add: Partial<SummarizerStats>): SummarizerStats {
  return {
    totalInputTokens: base.totalInputTokens + (add.totalInputTokens ?? 0),
    totalOutputTokens: base.totalOutputTokens + (add.totalOutputTokens ?? 0),
    totalCost: base.totalCost + (add.totalCost ?? 0),
    callCount: base.callCount + (add.callCount ?? 0),
    chainsCompressed: base.chainsCompressed + (add.chainsCompressed ?? 0),
    rangesSummarized: base.rangesSummarized + (add.rangesSummarized ?? 0),
  };
}
