/**
 * State builders for the render tests (records, summaries, chains, settings); the messages they render
 * come from `@condense/test-support/messages` (the spec's notation: A, R, U, F, C, S).
 */
import { DEFAULT_SETTINGS, normalizeSettings, type CondenseSettings } from "../../src/settings.ts";
import { buildState, type CondenseState } from "../../src/state.ts";
import {
  emptyStats,
  type ChainEntry,
  type DedupAlias,
  type SummaryEntry,
  type ToolCallRecord,
} from "../../src/state-types.ts";

export { record as rec } from "../support/builders.ts";
export function summary(id: string, coverage: string[], text = `summary ${id}`): SummaryEntry {
  return { id, text, refs: [], coverage, toolNames: [], turnIndex: 0, timestamp: 0 };
}
export function chain(
  blockId: string,
  start: number,
  final: number | null,
  extra: Partial<ChainEntry> = {},
): ChainEntry {
  return {
    blockId,
    startUserTimestamp: start,
    finalAssistantTimestamp: final,
    droppedToolCallIds: [],
    toolRefs: [],
    compressedAt: 900_000,
    ...extra,
  };
}
export function state(
  p: { records?: ToolCallRecord[]; summaries?: SummaryEntry[]; aliases?: DedupAlias[]; chains?: ChainEntry[] } = {},
): CondenseState {
  return buildState(1, p.records ?? [], p.summaries ?? [], p.aliases ?? [], p.chains ?? [], null, emptyStats());
}
export function settings(over: Record<string, unknown> = {}): CondenseSettings {
  return normalizeSettings({ ...DEFAULT_SETTINGS, ...over });
}
export const textOf = (m: unknown): string => {
  const c = (m as { content: unknown }).content;
  if (typeof c === "string") return c;
  return (c as { type: string; text?: string }[])
    .filter((p) => p.type === "text")
    .map((p) => p.text)
    .join("\n");
};
