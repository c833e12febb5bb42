/**
 * The commit of chain compression after a flush (or for a manual compact), in one transaction under
 * the session lock: mint refs for backfilled records, issue block ids `b<N>` from the session
 * counter, write the backfilled records, the chain entries, diagnostics and stats, bump the version.
 *
 * Idempotent per flush request (the result is stored on the request and returned on a re-run).
 * A chain whose start timestamp is already compressed is skipped, never re-issued a block id:
 * compression happens once per chain. Backfilled records that already exist are kept as they are.
 * A cross-table operation: it writes sessions, tool_call_records, chains, diagnostics, flush_requests.
 */
import { and, eq, sql } from "drizzle-orm";
import type { ChainEntry, SummarizerStats } from "@condense/core";
import type { Db } from "../client.ts";
import { chunks } from "../chunks.ts";
import { chains, diagnostics, flushRequests, sessions, toolCallRecords } from "../schema/index.ts";
import { lockSession } from "../session-lock.ts";
import { chainToRow, compressedChainStarts } from "./chains.ts";
import { loadRequest } from "./flush-requests.ts";
import { mintRefs, type MintedRefs } from "./ref-minting.ts";
import { loadSessionForUpdate } from "./sessions.ts";
import { addStats, hasStats } from "./stats-sum.ts";
import { recordToRow, type RecordWrite } from "./tool-call-records.ts";

/** A chain entry before its block id is issued. */
export type ChainWrite = Omit<ChainEntry, "blockId">;

export interface DiagnosticWrite {
  kind: string;
  dedupKey: string;
  detail?: string;
}

export interface ChainWrites {
  chains: ChainWrite[];
  /** Backfilled records (CAP-CHAIN-9): `backfilled: true`, refs from the minted ones. */
  records: RecordWrite[];
  /** Added to the session stats; `chainsCompressed` is counted here from the chains actually written. */
  stats?: Omit<Partial<SummarizerStats>, "chainsCompressed">;
  diagnostics?: DiagnosticWrite[];
}

export interface CommitChainsInput {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  /** Occurrence keys of backfilled records to mint refs for, grouped per chain. */
  mintRefs: string[][];
  writes: ChainWrites | ((minted: MintedRefs) => ChainWrites);
}

export interface CommitChainsResult {
  status: "committed" | "already-committed";
  version: number;
  /** startUserTimestamp -> issued block id, for the chains this commit wrote. */
  blockIds: Record<string, string>;
  /** Start timestamps that were already compressed and were skipped. */
  skipped: number[];
  refs: Record<string, string>;
  nextRef: number;
}

export async function commitChains(db: Db, input: CommitChainsInput): Promise<CommitChainsResult> {
  const { tenantId, sessionId } = input;
  return db.transaction(async (tx) => {
    await lockSession(tx, tenantId, sessionId);
    const request = await loadRequest(tx, input, input.flushRequestId);
    if (request.chainsResult)
      return { ...(request.chainsResult as unknown as CommitChainsResult), status: "already-committed" as const };
    const session = await loadSessionForUpdate(tx, input);
    const minted = mintRefs(session.nextRef, input.mintRefs);
    const w = typeof input.writes === "function" ? input.writes(minted) : input.writes;

    const existing = await compressedChainStarts(
      tx,
      input,
      w.chains.map((c) => c.startUserTimestamp),
    );
    let nextBlock = session.nextBlock;
    const fresh: ChainEntry[] = [];
    const skipped: number[] = [];
    for (const c of w.chains) {
      if (existing.has(c.startUserTimestamp) || fresh.some((f) => f.startUserTimestamp === c.startUserTimestamp)) {
        skipped.push(c.startUserTimestamp);
        continue;
      }
      fresh.push({ ...c, blockId: `b${nextBlock++}` });
    }
    const stats = { ...(w.stats ?? {}), chainsCompressed: fresh.length };
    const changesState = fresh.length > 0 || w.records.length > 0 || hasStats(stats);
    const version = changesState ? session.version + 1 : session.version;
    const fr = input.flushRequestId;

    for (const chunk of chunks(
      w.records.map((r) => recordToRow(tenantId, sessionId, version, fr, { ...r, backfilled: true })),
      200,
    )) {
      await tx.insert(toolCallRecords).values(chunk).onConflictDoNothing();
    }
    for (const chunk of chunks(
      fresh.map((c) => chainToRow(tenantId, sessionId, version, fr, c)),
      200,
    )) {
      await tx.insert(chains).values(chunk);
    }
    for (const d of w.diagnostics ?? []) {
      await tx
        .insert(diagnostics)
        .values({ tenantId, sessionId, kind: d.kind, dedupKey: d.dedupKey, detail: d.detail ?? "" })
        .onConflictDoNothing();
    }
    const result: CommitChainsResult = {
      status: "committed",
      version,
      blockIds: Object.fromEntries(fresh.map((c) => [String(c.startUserTimestamp), c.blockId])),
      skipped,
      refs: Object.fromEntries(minted.byKey),
      nextRef: minted.nextRef,
    };
    await tx
      .update(sessions)
      .set({
        nextRef: minted.nextRef,
        nextBlock,
        version,
        // Every commit advances commit_seq: a flush planned before this one commits as stale.
        commitSeq: sql`${sessions.commitSeq} + 1`,
        ...(hasStats(stats) ? { stats: addStats(session.stats, stats), statsVersion: version } : {}),
        updatedAt: sql`now()`,
      })
      .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)));
    await tx
      .update(flushRequests)
      .set({ chainsResult: result as unknown as Record<string, unknown> })
      .where(eq(flushRequests.id, request.id));
    return result;
  });
}
