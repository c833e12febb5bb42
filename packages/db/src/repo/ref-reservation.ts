/**
 * Short refs reserved before summarization (CAP-REF-1). The summarizer writes a batch's `tN` handles
 * into its text, so refs must exist before the LLM call, while `commitFlush` runs after it. A flush
 * request therefore reserves its refs first, in a transaction of its own under the session lock:
 * keys it reserved before get the same refs back (a retried job writes identical rows), and only new
 * keys advance the session counter. Numbers reserved for a batch that never commits are gaps: refs
 * stay monotonic and are never reused, which is all the render and query paths need.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { flushRequests, sessions } from "../schema/index.ts";
import { lockSession } from "../session-lock.ts";
import { loadRequest, loadSessionForUpdate } from "./commit-flush.ts";

export interface ReserveRefsInput {
  tenantId: string;
  sessionId: string;
  flushRequestId: string;
  /** Occurrence keys grouped per batch, in minting order. */
  keys: string[][];
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
  const { tenantId, sessionId } = input;
  return db.transaction(async (tx) => {
    await lockSession(tx, tenantId, sessionId);
    const request = await loadRequest(tx, tenantId, sessionId, input.flushRequestId);
    const [row] = await tx
      .select({ reservation: flushRequests.refReservation })
      .from(flushRequests)
      .where(eq(flushRequests.id, request.id));
    const reserved: Record<string, string> = { ...(row?.reservation ?? {}) };
    const session = await loadSessionForUpdate(tx, tenantId, sessionId);
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
