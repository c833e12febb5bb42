/**
 * The captures table: captured tool calls. Inserting is idempotent per occurrence key, so a retried POST (same capture
 * id, same calls) changes nothing and reports its calls as duplicates. The flush job reads pending
 * captures up to its cursor, in capture order, regrouped into the batches the client sent (the flush's one-statement first read of them is
 * flush-run-load.ts). Also: capture rows by key (chain backfill reads raw text there, including
 * trivial-skipped calls), why a capture is still pending, and the per-status counts of a session.
 */
import { and, asc, eq, inArray, lte, max, sql, type SQL } from "drizzle-orm";
import { contentHash, occKey, type CapturedBatch, type CapturedToolCall } from "@condense/core";
import type { Db, Tx } from "../client.ts";
import { captures, sessions, toolCallRecords, type CaptureStatus } from "../schema/index.ts";
import { chunks } from "../chunks.ts";
import { NotFoundError } from "../errors.ts";
import { ensureSession, type SessionKey } from "./sessions.ts";

export interface InsertCapturesInput extends SessionKey {
  /** The client's id for this POST; repeated verbatim on retry. */
  captureId: string;
  batches: CapturedBatch[];
  /**
   * Calls whose body was uploaded out of line (capture_bodies), by occurrence key, as the service
   * verified them. They are stored and indexed at once (CAP-SPILL-5): the capture is settled
   * `stored`, and a record with a fresh tN, the size and the head preview is written in the same
   * transaction with a bumped session version, so the stub appears without waiting for a flush.
   */
  outOfLine?: ReadonlyMap<string, OutOfLineBody>;
}

export interface OutOfLineBody {
  parts: number;
  /** Length in UTF-16 code units and UTF-8 bytes. */
  chars: number;
  bytes: number;
  preview: string;
  /** The service's hash of the assembled body. */
  contentHash: string;
}

export interface InsertCapturesResult {
  /** Calls stored by this call. */
  accepted: number;
  /** Calls already stored (a retry, or an occurrence seen before). */
  duplicate: number;
  /** The session's highest capture seq after the insert: the cursor a flush should carry. */
  maxSeq: number;
}

export async function insertCaptures(db: Db, input: InsertCapturesInput): Promise<InsertCapturesResult> {
  const body = (call: CapturedToolCall) => input.outOfLine?.get(occKey(call.toolCallId, call.resultTimestamp));
  const rows = input.batches.flatMap((batch, batchIndex) =>
    batch.toolCalls.map((call, callIndex) => ({
      tenantId: input.tenantId,
      sessionId: input.sessionId,
      occurrenceKey: occKey(call.toolCallId, call.resultTimestamp),
      captureId: input.captureId,
      batchIndex,
      callIndex,
      toolCallId: call.toolCallId,
      toolName: call.toolName,
      args: call.args ?? {},
      resultText: call.resultText,
      isError: call.isError,
      resultTimestamp: call.resultTimestamp ?? null,
      // Hashed at ingest (off the flush path), so the flush's first read can find canonicals itself.
      // Always from the text being stored, never a caller's value: the hash decides dedup, and a
      // trusted client hash would let two different texts alias each other.
      contentHash: body(call)?.contentHash ?? contentHash(call.toolName, call.resultText),
      ...(body(call)
        ? { bodyParts: body(call)!.parts, status: "stored" as const, statusReason: "stored-at-capture" }
        : {}),
      turnIndex: batch.turnIndex,
      batchTimestamp: batch.timestamp,
      assistantText: batch.assistantText ?? "",
      userTurnGroup: batch.userTurnGroup ?? null,
    })),
  );
  await ensureSession(db, input);
  return db.transaction(async (tx) => {
    let accepted = 0;
    const fresh = new Set<string>();
    // Chunked so one huge POST stays under the bind-parameter limit (about 20 columns per row).
    for (let i = 0; i < rows.length; i += 500) {
      const inserted = await tx
        .insert(captures)
        .values(rows.slice(i, i + 500))
        .onConflictDoNothing({ target: [captures.tenantId, captures.sessionId, captures.occurrenceKey] })
        .returning({ seq: captures.seq, key: captures.occurrenceKey });
      accepted += inserted.length;
      for (const r of inserted) fresh.add(r.key);
    }
    if (input.outOfLine && input.outOfLine.size > 0)
      await indexOutOfLine(
        tx,
        input,
        rows.filter((r) => fresh.has(r.occurrenceKey) && input.outOfLine!.has(r.occurrenceKey)),
      );
    if (accepted > 0) {
      await tx
        .update(sessions)
        .set({ lastCaptureAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(sessions.tenantId, input.tenantId), eq(sessions.sessionId, input.sessionId)));
    }
    const [top] = await tx
      .select({ maxSeq: max(captures.seq) })
      .from(captures)
      .where(and(eq(captures.tenantId, input.tenantId), eq(captures.sessionId, input.sessionId)));
    return { accepted, duplicate: rows.length - accepted, maxSeq: Number(top?.maxSeq ?? 0) };
  });
}

/**
 * Records for out-of-line bodies captured just now: one tN each from the session counter (the same
 * row lock orders it with flush reservations) and one version bump, so deltas and the SSE stream
 * carry them. No content hash on the record: a body kept in parts is never a dedup canonical (a
 * tenant-scope copy into another session would have no parts to read), only the capture row has it.
 */
async function indexOutOfLine(
  tx: Tx,
  input: InsertCapturesInput,
  rows: {
    occurrenceKey: string;
    toolCallId: string;
    toolName: string;
    args: Record<string, unknown>;
    isError: boolean;
    resultTimestamp: number | null;
    turnIndex: number;
    batchTimestamp: number;
  }[],
): Promise<void> {
  if (rows.length === 0) return;
  const [bumped] = await tx
    .update(sessions)
    .set({
      nextRef: sql`${sessions.nextRef} + ${rows.length}`,
      version: sql`${sessions.version} + 1`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(sessions.tenantId, input.tenantId), eq(sessions.sessionId, input.sessionId)))
    .returning({ nextRef: sessions.nextRef, version: sessions.version });
  if (!bumped)
    throw new NotFoundError(
      "session",
      `${input.tenantId}/${input.sessionId}`,
      "(deleted while indexing stored bodies)",
    );
  const first = bumped.nextRef - rows.length;
  await tx
    .insert(toolCallRecords)
    .values(
      rows.map((r, i) => {
        const b = input.outOfLine!.get(r.occurrenceKey)!;
        return {
          tenantId: input.tenantId,
          sessionId: input.sessionId,
          key: r.occurrenceKey,
          toolCallId: r.toolCallId,
          toolName: r.toolName,
          args: r.args,
          resultText: "",
          isError: r.isError,
          turnIndex: r.turnIndex,
          batchTimestamp: r.batchTimestamp,
          resultTimestamp: r.resultTimestamp,
          shortRef: `t${first + i}`,
          storedBytes: b.bytes,
          storedPreview: b.preview,
          storedParts: b.parts,
          storedChars: b.chars,
          version: Number(bumped.version),
        };
      }),
    )
    .onConflictDoNothing();
}

export async function maxCaptureSeq(db: Db, key: SessionKey): Promise<number> {
  const [top] = await db
    .select({ maxSeq: max(captures.seq) })
    .from(captures)
    .where(and(eq(captures.tenantId, key.tenantId), eq(captures.sessionId, key.sessionId)));
  return Number(top?.maxSeq ?? 0);
}

export interface PendingCall extends CapturedToolCall {
  seq: number;
  occurrenceKey: string;
}

export interface PendingBatch extends CapturedBatch {
  captureId: string;
  batchIndex: number;
  toolCalls: PendingCall[];
  /** Lowest and highest capture seq in the batch. */
  firstSeq: number;
  lastSeq: number;
}

/**
 * Pending captures with seq <= cursor, grouped back into the client's batches (capture id + batch
 * index), batches ordered by their first seq and calls by their position in the batch.
 */
export async function loadPendingCaptures(db: Db, input: SessionKey & { cursor: number }): Promise<PendingBatch[]> {
  const rows = await db.select().from(captures).where(pendingUpTo(input, input.cursor)).orderBy(asc(captures.seq));
  return groupPendingRows(rows);
}

/** What groupPendingRows needs of a capture row. */
export type PendingCaptureRow = Pick<
  typeof captures.$inferSelect,
  | "seq"
  | "occurrenceKey"
  | "captureId"
  | "batchIndex"
  | "callIndex"
  | "toolCallId"
  | "toolName"
  | "args"
  | "resultText"
  | "isError"
  | "resultTimestamp"
  | "contentHash"
  | "turnIndex"
  | "batchTimestamp"
  | "assistantText"
  | "userTurnGroup"
>;

/** A session's pending captures with seq <= cursor (a number, or a subquery that yields one). */
function pendingUpTo(key: SessionKey, cursor: number | SQL) {
  return and(
    eq(captures.tenantId, key.tenantId),
    eq(captures.sessionId, key.sessionId),
    eq(captures.status, "pending"),
    lte(captures.seq, cursor),
  );
}

/** Capture rows (in seq order) regrouped into the client's batches (capture id + batch index). */
export function groupPendingRows(rows: PendingCaptureRow[]): PendingBatch[] {
  const batches = new Map<string, PendingBatch>();
  for (const r of rows) {
    const id = `${r.captureId}\u0000${r.batchIndex}`;
    let b = batches.get(id);
    if (!b) {
      b = {
        captureId: r.captureId,
        batchIndex: r.batchIndex,
        turnIndex: r.turnIndex,
        timestamp: r.batchTimestamp,
        assistantText: r.assistantText,
        toolCalls: [],
        firstSeq: r.seq,
        lastSeq: r.seq,
      };
      if (r.userTurnGroup !== null) b.userTurnGroup = r.userTurnGroup;
      batches.set(id, b);
    }
    const call: PendingCall = {
      seq: r.seq,
      occurrenceKey: r.occurrenceKey,
      toolCallId: r.toolCallId,
      toolName: r.toolName,
      args: r.args,
      resultText: r.resultText,
      isError: r.isError,
    };
    if (r.resultTimestamp !== null) call.resultTimestamp = r.resultTimestamp;
    if (r.contentHash !== null) call.contentHash = r.contentHash;
    b.toolCalls.push(call);
    b.firstSeq = Math.min(b.firstSeq, r.seq);
    b.lastSeq = Math.max(b.lastSeq, r.seq);
  }
  const order = new Map(rows.map((r) => [r.seq, r.callIndex]));
  const out = [...batches.values()];
  for (const b of out) b.toolCalls.sort((x, y) => (order.get(x.seq) ?? 0) - (order.get(y.seq) ?? 0));
  return out.sort((x, y) => x.firstSeq - y.firstSeq);
}

export interface CaptureSettlement {
  key: string;
  status: Exclude<CaptureStatus, "pending">;
  reason?: string;
}

export type { CaptureStatus };

export interface CaptureRow {
  seq: number;
  occurrenceKey: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  resultText: string;
  isError: boolean;
  resultTimestamp: number | null;
  turnIndex: number;
  batchTimestamp: number;
  status: string;
}

/** Capture rows of the session with these occurrence keys, whatever their status, in capture order. */
export async function loadCapturesByKeys(db: Db, input: SessionKey & { keys: string[] }): Promise<CaptureRow[]> {
  const out: CaptureRow[] = [];
  for (const chunk of chunks([...new Set(input.keys)], 1000)) {
    const rows = await db
      .select({
        seq: captures.seq,
        occurrenceKey: captures.occurrenceKey,
        toolCallId: captures.toolCallId,
        toolName: captures.toolName,
        args: captures.args,
        resultText: captures.resultText,
        isError: captures.isError,
        resultTimestamp: captures.resultTimestamp,
        turnIndex: captures.turnIndex,
        batchTimestamp: captures.batchTimestamp,
        status: captures.status,
      })
      .from(captures)
      .where(
        and(
          eq(captures.tenantId, input.tenantId),
          eq(captures.sessionId, input.sessionId),
          inArray(captures.occurrenceKey, chunk),
        ),
      )
      .orderBy(asc(captures.seq));
    out.push(...rows);
  }
  return out.sort((a, b) => a.seq - b.seq);
}

/** Note why captures are still pending (informational: status stays `pending`, nothing is settled). */
export async function notePendingReason(
  db: Db,
  input: SessionKey & { keys: string[]; reason: string },
): Promise<number> {
  let n = 0;
  for (const chunk of chunks([...new Set(input.keys)], 1000)) {
    const rows = await db
      .update(captures)
      .set({ statusReason: input.reason })
      .where(
        and(
          eq(captures.tenantId, input.tenantId),
          eq(captures.sessionId, input.sessionId),
          eq(captures.status, "pending"),
          inArray(captures.occurrenceKey, chunk),
        ),
      )
      .returning({ seq: captures.seq });
    n += rows.length;
  }
  return n;
}

/** Per-status capture counts of a session, and its highest capture seq. */
export async function captureCounts(
  db: Db,
  key: SessionKey,
): Promise<Record<CaptureStatus, number> & { total: number; maxSeq: number }> {
  const rows = await db
    .select({
      status: captures.status,
      n: sql<number>`count(*)`.mapWith(Number),
      maxSeq: sql<number>`coalesce(max(${captures.seq}), 0)`.mapWith(Number),
    })
    .from(captures)
    .where(and(eq(captures.tenantId, key.tenantId), eq(captures.sessionId, key.sessionId)))
    .groupBy(captures.status);
  const counts = { pending: 0, summarized: 0, skipped: 0, deduped: 0, stored: 0, total: 0, maxSeq: 0 };
  for (const r of rows) {
    counts[r.status] = r.n;
    counts.total += r.n;
    counts.maxSeq = Math.max(counts.maxSeq, r.maxSeq);
  }
  return counts;
}

/** Pending captures across a tenant's sessions. */
export async function tenantPendingCaptures(db: Db, tenantId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`count(*)`.mapWith(Number) })
    .from(captures)
    .where(and(eq(captures.tenantId, tenantId), eq(captures.status, "pending")));
  return row?.n ?? 0;
}
