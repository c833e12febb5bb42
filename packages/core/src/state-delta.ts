/**
 * The versioned state delta: the one wire shape the API serves from
 * `GET /v1/sessions/:id/state?since=<v>` and the client applies with `applyDelta`.
 * Entries are append-or-replace by their natural key, so applying a delta twice is harmless.
 */
import type { ChainEntry, DedupAlias, Frontier, SummarizerStats, SummaryEntry, ToolCallRecord } from "./state-types.ts";

export const STATE_DELTA_FORMAT = "condense.state-delta/1" as const;

export interface StateDelta {
  format: typeof STATE_DELTA_FORMAT;
  /** The version the delta starts from (the `since` the client asked with). 0 = full snapshot. */
  fromVersion: number;
  toVersion: number;
  records: ToolCallRecord[];
  summaries: SummaryEntry[];
  aliases: DedupAlias[];
  chains: ChainEntry[];
  frontier?: Frontier | null;
  stats?: SummarizerStats;
  /**
   * Occurrence keys the service captured and settled without a record or an alias (skipped: trivial,
   * protected, or an oversized summary). With the records and aliases they are the session's coverage:
   * what a rescan must not send again. Additive, like the other entry lists.
   */
  settled?: string[];
}
