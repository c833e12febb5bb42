/**
 * A flush run's first read, in ONE statement (flush-run-load.sql.ts): the request (with its last
 * recorded attempt and ref reservation) and the session's pending captures up to its cursor (with the
 * already-indexed flags, the content-hash canonicals, and the session's commit_seq and stats, all
 * from one snapshot). Cross-table: it reads sessions, captures, tool_call_records, dedup_aliases,
 * flush_requests and flush_metrics together, which is the point.
 */
import type { SummarizerStats } from "@condense/core";
import type { Db } from "../client.ts";
import { num, numOrNull, runStatement } from "../statement.ts";
import { groupPendingRows, type PendingBatch, type PendingCaptureRow } from "./captures.ts";
import type { SeenSession } from "./flush-commit.ts";
import { requestForRunFromRow, type FlushRequestForRun } from "./flush-requests.ts";
import { FLUSH_RUN } from "./flush-run-load.sql.ts";
import type { SessionKey } from "./sessions.ts";

export interface PendingForFlush {
  batches: PendingBatch[];
  /** Occurrence keys among them that already have a record or a dedup alias in the session. */
  indexed: Set<string>;
  /**
   * The session's commit sequence and stats in the same snapshot as the captures: `commitFlush`'s
   * optimistic commit applies only if no commit happened since. Null when the session does not exist.
   */
  seen: SeenSession | null;
  /**
   * The content-hash canonicals of these captures, read in the same statement (by each capture's
   * stored hash): the first non-backfilled record with the hash in the session, and in the tenant
   * with its session and whether its key is already present in this session.
   */
  canonicalHints: Map<string, CanonicalHint>;
}

export interface CanonicalHint {
  /** Key of the first record with this hash in this session, or null. */
  sessionKey: string | null;
  /** Key and session of the first record with this hash in the tenant, or null. */
  tenantKey: string | null;
  tenantSession: string | null;
  /** Whether the tenant canonical's key already has a record or an alias in this session. */
  tenantPresent: boolean;
}

export interface FlushRunLoad {
  /** Null when the request does not exist for this tenant (or its session does not exist). */
  loaded: FlushRequestForRun | null;
  pending: PendingForFlush;
}

export async function loadFlushRun(
  db: Db,
  input: SessionKey & { flushRequestId: string; queueAttempt: number },
): Promise<FlushRunLoad> {
  const rows = await runStatement(db, FLUSH_RUN, input);
  const request = rows[0]?.request as Record<string, unknown> | null | undefined;
  return { loaded: request ? requestForRunFromRow(request, input.queueAttempt) : null, pending: pendingFromRows(rows) };
}

/** The same read for a re-plan after a stale commit: only the pending captures are used. */
export async function loadPendingForFlush(
  db: Db,
  input: SessionKey & { flushRequestId: string },
): Promise<PendingForFlush> {
  return pendingFromRows(await runStatement(db, FLUSH_RUN, input));
}

/** Rows of FLUSH_RUN -> what the flush plans from. */
function pendingFromRows(rows: Record<string, unknown>[]): PendingForFlush {
  const first = rows[0];
  const seen = first ? { commitSeq: num(first.commit_seq), stats: first.stats as SummarizerStats } : null;
  const captured = rows.filter((r) => r.seq !== null).map(captureFromRow);
  const indexed = new Set<string>();
  const canonicalHints = new Map<string, CanonicalHint>();
  for (const r of rows) {
    if (r.indexed === true) indexed.add(r.occurrence_key as string);
    if (typeof r.content_hash === "string") {
      canonicalHints.set(r.content_hash, {
        sessionKey: (r.canon_session_key as string | null) ?? null,
        tenantKey: (r.canon_tenant_key as string | null) ?? null,
        tenantSession: (r.canon_tenant_session as string | null) ?? null,
        tenantPresent: r.canon_tenant_present === true,
      });
    }
  }
  return { batches: groupPendingRows(captured), indexed, seen, canonicalHints };
}

/** The columns groupPendingRows reads, from a raw row. */
function captureFromRow(r: Record<string, unknown>): PendingCaptureRow {
  return {
    seq: num(r.seq),
    occurrenceKey: r.occurrence_key as string,
    captureId: r.capture_id as string,
    batchIndex: r.batch_index as number,
    callIndex: r.call_index as number,
    toolCallId: r.tool_call_id as string,
    toolName: r.tool_name as string,
    args: r.args as Record<string, unknown>,
    resultText: r.result_text as string,
    isError: r.is_error as boolean,
    resultTimestamp: numOrNull(r.result_timestamp),
    contentHash: (r.content_hash as string | null) ?? null,
    turnIndex: r.turn_index as number,
    batchTimestamp: num(r.batch_timestamp),
    assistantText: r.assistant_text as string,
    userTurnGroup: (r.user_turn_group as number | null) ?? null,
  };
}
