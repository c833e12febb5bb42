/**
 * Prune-time diagnostics (CAP-DIAG): the value a render reports and the ledger that makes each
 * `(kind, dedupKey)` pair "at most once" and keeps the per-kind counters. The render path only
 * returns diagnostics; whoever persists them owns a `DiagnosticsLedger` value and threads it through
 * these pure functions (a pair is marked seen only after its write succeeded, CAP-DIAG-3).
 */
import { createHash } from "node:crypto";
import type { DiagCounts } from "./texts.ts";

export type DiagnosticKind =
  | "unresolved-range"
  | "range-id-mismatch"
  | "orphan-sweep"
  | "backfill-empty"
  /** Condense addition: a message the render path could not read; it is passed through untouched. */
  | "malformed-message";

export interface Diagnostic {
  kind: DiagnosticKind;
  dedupKey: string;
  detail: string;
}

export interface DiagnosticsLedger {
  /** `kind + "\u0000" + dedupKey` of every pair already reported. */
  readonly seen: ReadonlySet<string>;
  readonly counts: Readonly<Record<DiagnosticKind, number>>;
}

const ZERO: Readonly<Record<DiagnosticKind, number>> = Object.freeze({
  "unresolved-range": 0,
  "range-id-mismatch": 0,
  "orphan-sweep": 0,
  "backfill-empty": 0,
  "malformed-message": 0,
});

export function emptyLedger(): DiagnosticsLedger {
  return { seen: new Set(), counts: ZERO };
}

const pairKey = (d: Diagnostic) => `${d.kind}\u0000${d.dedupKey}`;

/** The diagnostics not yet in the ledger, each pair once, in report order. Does not mark them. */
export function unseenDiagnostics(ledger: DiagnosticsLedger, reported: readonly Diagnostic[]): Diagnostic[] {
  const out: Diagnostic[] = [];
  let batch: Set<string> | undefined;
  for (const d of reported) {
    const k = pairKey(d);
    if (ledger.seen.has(k) || batch?.has(k)) continue;
    (batch ??= new Set()).add(k);
    out.push(d);
  }
  return out;
}

/** Mark diagnostics as reported (call after they were persisted). Returns the same ledger when nothing is new. */
export function markReported(ledger: DiagnosticsLedger, written: readonly Diagnostic[]): DiagnosticsLedger {
  const fresh = unseenDiagnostics(ledger, written);
  if (fresh.length === 0) return ledger;
  const seen = new Set(ledger.seen);
  const counts = { ...ledger.counts };
  for (const d of fresh) {
    seen.add(pairKey(d));
    counts[d.kind] = (counts[d.kind] ?? 0) + 1;
  }
  return { seen, counts };
}

/** Both steps at once, for callers whose write cannot fail (or that do not persist at all). */
export function recordDiagnostics(
  ledger: DiagnosticsLedger,
  reported: readonly Diagnostic[],
): { ledger: DiagnosticsLedger; fresh: Diagnostic[] } {
  const fresh = unseenDiagnostics(ledger, reported);
  return { ledger: fresh.length === 0 ? ledger : markReported(ledger, fresh), fresh };
}

/** Counters in the footer's u/m/o/b form (CAP-DIAG-5). */
export function diagCounts(ledger: DiagnosticsLedger): DiagCounts {
  const c = ledger.counts;
  return { u: c["unresolved-range"], m: c["range-id-mismatch"], o: c["orphan-sweep"], b: c["backfill-empty"] };
}

/** First 16 hex chars of SHA-1: bounded dedup keys for diagnostics keyed by content (CAP-DIAG-2). */
export function shortHash(text: string): string {
  return createHash("sha1").update(text).digest("hex").slice(0, 16);
}

// ---- details (internal log text; not shown to the model)

export function unresolvedRangeDiagnostic(blockId: string, start: number, final: number | null): Diagnostic {
  return { kind: "unresolved-range", dedupKey: blockId, detail: `blockId=${blockId} start=${start} final=${final}` };
}

export function overlapDiagnostic(blockId: string, reason: string): Diagnostic {
  return { kind: "unresolved-range", dedupKey: `overlap:${blockId}`, detail: `blockId=${blockId} ${reason}` };
}

export function rangeMismatchDiagnostic(blockId: string, recorded: number, actual: number): Diagnostic {
  return {
    kind: "range-id-mismatch",
    dedupKey: blockId,
    detail: `blockId=${blockId} recorded=${recorded} actual=${actual}`,
  };
}

/** `ids` must already be sorted; the key hashes them so the seen-set stays bounded. */
export function orphanSweepDiagnostic(sortedIds: readonly string[]): Diagnostic {
  const head = sortedIds.slice(0, 5).join(", ");
  const more = sortedIds.length > 5 ? ` ... +${sortedIds.length - 5} more` : "";
  return {
    kind: "orphan-sweep",
    dedupKey: shortHash(sortedIds.join(",")),
    detail: `swept ${sortedIds.length} orphan toolResult(s): ${head}${more}`,
  };
}

export function backfillEmptyDiagnostic(startUserTimestamp: number, middles: number): Diagnostic {
  return { kind: "backfill-empty", dedupKey: String(startUserTimestamp), detail: `middles=${middles}` };
}
