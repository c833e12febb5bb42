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
 * transaction below decides.
 */
import { and, eq, sql } from "drizzle-orm";
import type { Db } from "../client.ts";
import { flushRequests, sessions } from "../schema/index.ts";
import { num, rawQuery } from "../raw-query.ts";
import { lockSession } from "../session-lock.ts";
import { loadRequest, loadSessionForUpdate } from "./commit-flush.ts";

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
async function reserveKnown(db: Db, input: ReserveRefsInput & { known: Record<string, string> }): Promise<RefReservation | null> {
  const { tenantId, sessionId, known } = input;
  const fresh = [...new Set(input.keys.flat())].filter((k) => known[k] === undefined);
  const assign = (reserved: Record<string, string>, minted: number, nextRef: number): RefReservation => {
    const byKey = new Map<string, string>();
    const groups = input.keys.map((g) => g.map((k) => { const ref = reserved[k]!; byKey.set(k, ref); return ref; }));
    return { groups, byKey, minted, nextRef };
  };
  // Everything reserved already (a retry): the locked path returns it and the current counter.
  if (fresh.length === 0) return null;
  const n = fresh.length;
  const rows = await rawQuery(db, RESERVE_KNOWN_SQL, [tenantId, sessionId, input.flushRequestId, n, JSON.stringify(known), JSON.stringify(fresh)]);
  const row = rows[0] as { first: unknown; reservation: Record<string, string> | string | null } | undefined;
  if (!row || row.first === null || row.reservation === null) return null;
  const reservation = typeof row.reservation === "string" ? (JSON.parse(row.reservation) as Record<string, string>) : row.reservation;
  return assign(reservation, n, num(row.first) + n);
}

/**
 * The fast path's one statement (fixed text, raw-query.ts). $4: how many; $5: the known reservation;
 * $6: the new keys.
 *
 * It commits without waiting for its WAL flush (synchronous_commit off for this statement's own
 * transaction only). Safe because nothing durable depends on a reservation alone: the refs reach
 * records and summaries only through a later flush commit, which is synchronous and flushes the WAL
 * up to itself, this reservation included. A reservation lost to a database crash before that commit
 * is as if it never happened, and the retried run reserves again.
 */
const RESERVE_KNOWN_SQL = `
with async as (
  select set_config('synchronous_commit', 'off', true) as v
), s as (
  update sessions set next_ref = next_ref + $4::integer, updated_at = now()
  where tenant_id = $1 and session_id = $2
    and exists (select 1 from async)
    and exists (select 1 from flush_requests where id = $3::uuid and tenant_id = $1 and session_id = $2
                and coalesce(ref_reservation, '{}'::jsonb) = $5::jsonb)
  returning next_ref - $4::integer as first
), r as (
  update flush_requests fr
  set ref_reservation = coalesce(fr.ref_reservation, '{}'::jsonb) || (
    select jsonb_object_agg(k.key, 't' || (s.first + k.ord - 1)) from s, jsonb_array_elements_text($6::jsonb) with ordinality as k(key, ord))
  where fr.id = $3::uuid and coalesce(fr.ref_reservation, '{}'::jsonb) = $5::jsonb and exists (select 1 from s)
  returning fr.ref_reservation
)
select (select first from s) as first, (select ref_reservation from r) as reservation`;

async function reserveLocked(db: Db, input: ReserveRefsInput): Promise<RefReservation> {
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
