/**
 * The `cost:external` payload (CAP-SUM-14): summarizer spend since the session (re)loaded, so a
 * consumer that keys by `source` and overwrites never double-counts spend from earlier processes.
 */
import type { SummarizerStats } from "./state-types.ts";

export const COST_EVENT_SOURCE = "condense";

export interface CostEventPayload {
  source: string;
  totalCost: number;
  inputTokens: number;
  outputTokens: number;
}

export function costSinceLoad(now: SummarizerStats, baseline: SummarizerStats | null): CostEventPayload {
  const base = baseline ?? now;
  return {
    source: COST_EVENT_SOURCE,
    totalCost: Math.max(0, now.totalCost - base.totalCost),
    inputTokens: Math.max(0, now.totalInputTokens - base.totalInputTokens),
    outputTokens: Math.max(0, now.totalOutputTokens - base.totalOutputTokens),
  };
}
