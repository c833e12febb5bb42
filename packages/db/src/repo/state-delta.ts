/**
 * `getStateDelta`: every state row a client has not seen, as the core `StateDelta` wire shape, in ONE
 * statement (state-delta.sql.ts): the session's version and, in the same snapshot, the rows of every
 * state table with since < version <= that version (and the skipped captures a commit in the window
 * settled). A replay syncs after every flush, and this was 7 statements per sync (a session read, then
 * six table reads), most of a replay's statements on PGlite.
 */
import { STATE_DELTA_FORMAT, type StateDelta, type SummarizerStats } from "@condense/core";
import type { Db } from "../client.ts";
import { num, runStatement } from "../statement.ts";
import { chainFromRow } from "./chains.ts";
import { aliasFromRow } from "./dedup-aliases.ts";
import { frontierFromRow } from "./frontiers.ts";
import type { SessionKey } from "./sessions.ts";
import { STATE_DELTA } from "./state-delta.sql.ts";
import { summaryFromRow } from "./summaries.ts";
import { recordFromRow } from "./tool-call-records.ts";

type Images<F extends (row: never) => unknown> = Parameters<F>[0][];

/**
 * null when the session does not exist (for this tenant). A `since` beyond the current version (a
 * client whose mirror outlived the data) gets a full snapshot (fromVersion 0) so it can resync.
 */
export async function getStateDelta(db: Db, input: SessionKey & { since: number }): Promise<StateDelta | null> {
  const [row] = await runStatement(db, STATE_DELTA, input);
  if (!row) return null;
  const since = num(row.since);
  const delta: StateDelta = {
    format: STATE_DELTA_FORMAT,
    fromVersion: since,
    toVersion: num(row.version),
    records: (row.records as Images<typeof recordFromRow>).map(recordFromRow),
    summaries: (row.summaries as Images<typeof summaryFromRow>).map(summaryFromRow),
    aliases: (row.aliases as Images<typeof aliasFromRow>).map(aliasFromRow),
    chains: (row.chains as Images<typeof chainFromRow>).map(chainFromRow),
  };
  const frontier = row.frontier as Parameters<typeof frontierFromRow>[0] | null;
  if (frontier) delta.frontier = frontierFromRow(frontier);
  else if (since === 0) delta.frontier = null;
  if (since === 0 || num(row.stats_version) > since) delta.stats = row.stats as SummarizerStats;
  const settled = row.settled as string[];
  if (settled.length > 0) delta.settled = settled;
  return delta;
}
