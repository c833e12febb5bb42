/**
 * The condensation state of one session, as the service computes it and the client mirrors it.
 * Everything the render path needs is here; it arrives as versioned deltas (see state-delta.ts)
 * and is indexed once per version (see state.ts), never per render.
 */

export interface ToolCallRecord {
  /** Occurrence key `id@resultTimestamp`, or the bare id for legacy records (CAP-IDX-1). */
  key: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** Raw result text; "" when the body is stored out of line (`stored` is set). */
  resultText: string;
  isError: boolean;
  /** Assistant position in the branch; -1 for chain-backfilled records. */
  turnIndex: number;
  /** Batch timestamp (CAP-CAPTURE-4); never an identity. */
  timestamp: number;
  resultTimestamp?: number;
  /** `tN`; absent for oversized (stored) records, which are stubbed with their raw id. */
  shortRef?: string;
  contentHash?: string;
  /** Oversized body kept out of line (the service's replacement for pi-condense's sidecar spill). */
  stored?: { bytes: number; preview: string };
  /** Summary that covers this record, if any. */
  summaryId?: string;
  backfilled?: boolean;
}

export interface SummaryRef {
  shortId: string;
  toolCallId: string;
  resultTimestamp?: number;
}

export interface SummaryEntry {
  id: string;
  /** Full summary text, inline refs rewritten and footer appended. */
  text: string;
  refs: SummaryRef[];
  /** Occurrence keys this summary covers (chain body lookup, coverage suppression). */
  coverage: string[];
  toolNames: string[];
  turnIndex: number;
  timestamp: number;
}

export interface DedupAlias {
  key: string;
  originalKey: string;
}

export type ChainBodySource = "llm" | "concat" | "deterministic";

export interface ChainEntry {
  blockId: string;
  startUserTimestamp: number;
  finalAssistantTimestamp: number | null;
  droppedToolCallIds: string[];
  droppedOccurrenceKeys?: string[];
  protectedToolCallIds?: string[];
  toolRefs: string[];
  compressedAt: number;
  rangeSummaryText?: string;
  bodySource?: ChainBodySource;
}

export type FlushOutcome =
  | "summarized"
  | "skipped-oversized"
  | "skipped-deduped"
  | "skipped-trivial"
  | "empty"
  | "error";

export interface Frontier {
  lastAttemptedToolCallId: string;
  lastAttemptedToolName: string;
  lastAttemptedTurnIndex: number;
  lastAttemptedTimestamp: number;
  attemptedBatchCount: number;
  attemptedToolCallCount: number;
  rawCharCount: number;
  summaryCharCount: number;
  outcome: FlushOutcome;
}

export interface SummarizerStats {
  totalInputTokens: number;
  totalOutputTokens: number;
  totalCost: number;
  callCount: number;
  chainsCompressed: number;
  rangesSummarized: number;
}

export const emptyStats = (): SummarizerStats => ({
  totalInputTokens: 0,
  totalOutputTokens: 0,
  totalCost: 0,
  callCount: 0,
  chainsCompressed: 0,
  rangesSummarized: 0,
});
