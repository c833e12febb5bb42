/**
 * `getStateDelta`: every state row a client has not seen, as the core `StateDelta` wire shape.
 * The session version is read first; a commit writes its rows and the version bump atomically, so
 * rows with since < version <= that version are exactly the committed changes in between. Cross-table:
 * it reads every state table (and the skipped captures a commit settled) at once.
 */
import { and, asc, eq, gt, lte } from "drizzle-orm";
import { STATE_DELTA_FORMAT, type StateDelta } from "@condense/core";
import type { Db } from "../client.ts";
import {
  captures,
  chains,
  dedupAliases,
  flushRequests,
  frontiers,
  sessions,
  summaries,
  toolCallRecords,
} from "../schema/index.ts";
import type { SessionKey } from "./sessions.ts";
import { chainFromRow } from "./chains.ts";
import { aliasFromRow } from "./dedup-aliases.ts";
import { frontierFromRow } from "./frontiers.ts";
import { summaryFromRow } from "./summaries.ts";
import { recordFromRow } from "./tool-call-records.ts";

/**
 * null when the session does not exist (for this tenant). A `since` beyond the current version (a
 * client whose mirror outlived the data) gets a full snapshot (fromVersion 0) so it can resync.
 */
export async function getStateDelta(db: Db, input: SessionKey & { since: number }): Promise<StateDelta | null> {
  const { tenantId, sessionId } = input;
  const [session] = await db
    .select({ version: sessions.version, stats: sessions.stats, statsVersion: sessions.statsVersion })
    .from(sessions)
    .where(and(eq(sessions.tenantId, tenantId), eq(sessions.sessionId, sessionId)));
  if (!session) return null;
  const to = session.version;
  const since = input.since > to || input.since < 0 ? 0 : Math.floor(input.since);
  const window = <
    T extends typeof toolCallRecords | typeof summaries | typeof dedupAliases | typeof chains | typeof frontiers,
  >(
    t: T,
  ) => and(eq(t.tenantId, tenantId), eq(t.sessionId, sessionId), gt(t.version, since), lte(t.version, to));

  const [records, summaryRows, aliasRows, chainRows, frontierRows, settledRows] = await Promise.all([
    db.select().from(toolCallRecords).where(window(toolCallRecords)).orderBy(asc(toolCallRecords.seq)),
    db.select().from(summaries).where(window(summaries)).orderBy(asc(summaries.seq)),
    db.select().from(dedupAliases).where(window(dedupAliases)).orderBy(asc(dedupAliases.seq)),
    db.select().from(chains).where(window(chains)).orderBy(asc(chains.seq)),
    db.select().from(frontiers).where(window(frontiers)),
    // Skipped captures belong to the version of the commit that settled them (their flush request's).
    db
      .select({ key: captures.occurrenceKey })
      .from(flushRequests)
      .innerJoin(
        captures,
        and(
          eq(captures.tenantId, flushRequests.tenantId),
          eq(captures.sessionId, flushRequests.sessionId),
          eq(captures.settledBy, flushRequests.id),
          eq(captures.status, "skipped"),
        ),
      )
      .where(
        and(
          eq(flushRequests.tenantId, tenantId),
          eq(flushRequests.sessionId, sessionId),
          gt(flushRequests.committedVersion, since),
          lte(flushRequests.committedVersion, to),
        ),
      )
      .orderBy(asc(captures.seq)),
  ]);
  const delta: StateDelta = {
    format: STATE_DELTA_FORMAT,
    fromVersion: since,
    toVersion: to,
    records: records.map(recordFromRow),
    summaries: summaryRows.map(summaryFromRow),
    aliases: aliasRows.map(aliasFromRow),
    chains: chainRows.map(chainFromRow),
  };
  const frontier = frontierRows[0];
  if (frontier) delta.frontier = frontierFromRow(frontier);
  else if (since === 0) delta.frontier = null;
  if (since === 0 || session.statsVersion > since) delta.stats = session.stats;
  if (settledRows.length > 0) delta.settled = settledRows.map((r) => r.key);
  return delta;
}
