/**
 * The chains a flush request carries: the closed chains the client detected (CAP-CHAIN-1 output,
 * timestamps and middle ids) and, per chain, the recovery keys still in grace that fall inside it
 * (`graceKeys`, from core's `graceSet`). Read defensively: the column is client data.
 */
import type { DetectedChain } from "@condense/core";

export interface RequestChains {
  chains: DetectedChain[];
  graceKeys: Set<string>;
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : []);
const finite = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

export function parseRequestChains(raw: unknown): RequestChains {
  const chains: DetectedChain[] = [];
  const graceKeys = new Set<string>();
  if (!Array.isArray(raw)) return { chains, graceKeys };
  raw.forEach((c, i) => {
    if (typeof c !== "object" || c === null) return;
    const o = c as Record<string, unknown>;
    const start = finite(o.startUserTimestamp);
    const final = finite(o.finalAssistantTimestamp);
    for (const k of strings(o.graceKeys)) graceKeys.add(k);
    chains.push({
      startUserTimestamp: start,
      finalAssistantTimestamp: final,
      middleToolCallIds: strings(o.middleToolCallIds),
      middleOccurrenceKeys: strings(o.middleOccurrenceKeys),
      protectedToolCallIds: strings(o.protectedToolCallIds),
      // Message indices are the client's; the worker never uses them.
      startIndex: i,
      endIndex: i,
      interrupted: final === null,
    });
  });
  // Eligibility counts the newest K: keep the client's chronological order, by start time.
  chains.sort((a, b) => (a.startUserTimestamp ?? 0) - (b.startUserTimestamp ?? 0));
  return { chains, graceKeys };
}
