/**
 * Short refs reserved before summarization (CAP-REF-1). The summarizer writes a batch's `tN` handles
 * into its text, so refs must exist before the LLM call, while `commitFlush` runs after it. A flush
 * request therefore reserves its refs first, in a transaction of its own under the session lock:
 * keys it reserved before get the same refs back (a retried job writes identical rows), and only new
 * keys advance the session counter. Numbers reserved for a batch that never commits are gaps: refs
 * stay monotonic and are never reused, which is all the render and query paths need.
 *
 * Fast path (`known`: the reservation the caller read with the request) for keys not reserved yet:
 * ONE statement advances the session counter (its row lock orders it with
 * every other writer of `next_ref`) and writes the new refs, on condition that the request's
 * reservation is still exactly `known` (compare-and-set under the request's row lock). If another run
 * of the request reserved meanwhile, the numbers just taken are burned (a gap) and the locked
 * transaction below decides. A cross-table operation (sessions' counter, the request's reservation).
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { flushRequests, sessions } from "../schema/index.ts";
import { lockSession } from "../session-lock.ts";
import { num, runStatement } from "../statement.ts";
import { loadRequest } from "./flush-requests.ts";
import { RESERVE_KNOWN } from "./ref-reservation.sql.ts";
import { loadSessionForUpdate } from "./sessions.ts";

export interface ReserveRefsInput {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  /** Occurrence keys grouped per batch, in minting order. */
  keys: string[][];
  /** The request's reservation as the caller last read it (loadFlushRun): enables the fast path. */
  known?: Record<string, string>;
}

export interface RefReservation {
  /** Aligned with the input: keys[i][j] -> groups[i][j]. */
  groups: string[][];
  byKey: ReadonlyMap<string, string>;
  /** How many refs this call minted (0 on a retry that asked for the same keys). */
  minted: number;
  /** The session counter after the reservation. */
  nextRef: number;
}

export async function reserveRefs(db: Db, input: ReserveRefsInput): Promise<RefReservation> {
  if (input.known) {
    const fast = await reserveKnown(db, { ...input, known: input.known });
    if (fast) return fast;
  }
  return reserveLocked(db, input);
}

/** The fast path: null when the request's reservation changed since the caller read it. */
async function reserveKnown(
  db: Db,
  input: ReserveRefsInput & { known: Record<string, string> },
): Promise<RefReservation | null> {
  const { tenantId, sessionId, known } = input;
  const fresh = [...new Set(input.keys.flat())].filter((k) => known[k] === undefined);
  const assign = (reserved: Record<string, string>, minted: number, nextRef: number): RefReservation => {
    const byKey = new Map<string, string>();
    const groups = input.keys.map((g) =>
      g.map((k) => {
        const ref = reserved[k]!;
        byKey.set(k, ref);
        return ref;
      }),
    );
    return { groups, byKey, minted, nextRef };
  };
  // Everything reserved already (a retry): the locked path returns it and the current counter.
  if (fresh.length === 0) return null;
  const n = fresh.length;
  const rows = await runStatement(db, RESERVE_KNOWN, {
    tenantId,
    sessionId,
    flushRequestId: input.flushRequestId,
    count: n,
    known: JSON.stringify(known),
    fresh: JSON.stringify(fresh),
  });
  const row = rows[0] as { first: unknown; reservation: Record<string, string> | string | null } | undefined;
  if (!row || row.first === null || row.reservation === null) return null;
  const reservation =
    typeof row.reservation === "string" ? (JSON.parse(row.reservation) as Record<string, string>) : row.reservation;
  return assign(reservation, n, num(row.first) + n);
}

async function reserveLocked(db: Db, input: ReserveRefsInput): Promise<RefReservation> {
  const { tenantId, sessionId } = input;
  return db.transaction(async (tx) => {
    await lockSession(tx, tenantId, sessionId);
    const request = await loadRequest(tx, input, input.flushRequestId);
    const [row] = await tx
      .select({ reservation: flushRequests.refReservation })
      .from(flushRequests)
      .where(eq(flushRequests.id, request.id));
    const reserved: Record<string, string> = { ...(row?.reservation ?? {}) };
    const session = await loadSessionForUpdate(tx, input);
    let next = session.nextRef;
    let minted = 0;
    const byKey = new Map<string, string>();
    const groups = input.keys.map((group) =>
      group.map((key) => {
        let ref = byKey.get(key) ?? reserved[key];
        if (ref === undefined) {
          ref = `t${next++}`;
          minted++;
          reserved[key] = ref;
        }
        byKey.set(key, ref);
        return ref;
      }),
    );
    if (minted > 0) {
      await tx.update(flushRequests).set({ refReservation: reserved }).where(eq(flushRequests.id, request.id));
      await tx
        .update(sessions)
        .set({ nextRef: next, updatedAt: sql`now()` })
        .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)));
    }
    return { groups, byKey, minted, nextRef: next };
  });
}
