/**
 * Importing the state another condenser left in a session (pi-condense's session entries, read by the
 * pi extension): records with their refs, summaries, dedup aliases, the frontier and stats commit as
 * one flush request of trigger `import` (commitFlush), the compressed chains as its chain commit
 * (commitChains, which issues block ids in chain order). The request id derives from the import id,
 * so a repeated import is a no-op; a session that already holds other state is refused.
 */
import { createHash } from "node:crypto";
import type { ChainEntry, DedupAlias, Frontier, SummarizerStats, SummaryEntry } from "@condense/core";
import type { Db } from "../client.ts";
import { commitChains } from "./chain-commit.ts";
import { commitFlush } from "./flush-commit.ts";
import { createFlushRequest, getFlushRequest } from "./flush-requests.ts";
import { getSession } from "./sessions.ts";
import type { RecordWrite } from "./tool-call-records.ts";

export interface SessionImportInput {
  tenantId: string;
  sessionId: string;
  importId: string;
  /** Where the state came from (`pi-condense`): the metrics row's reason names it. */
  source: string;
  records: RecordWrite[];
  summaries: SummaryEntry[];
  aliases: DedupAlias[];
  chains: Omit<ChainEntry, "blockId">[];
  frontier: Frontier | null;
  stats: SummarizerStats | null;
}

export interface SessionImportResult {
  status: "imported" | "already-imported" | "session-has-state";
  version: number;
  blockIds: Record<string, string>;
}

/** A stable uuid for an import id (the flush request's id). */
function importRequestId(importId: string): string {
  const h = createHash("sha256").update(`import\u0000${importId}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export async function importSessionState(db: Db, input: SessionImportInput): Promise<SessionImportResult> {
  const key = { tenantId: input.tenantId, sessionId: input.sessionId };
  const id = importRequestId(input.importId);
  const earlier = await getFlushRequest(db, input.tenantId, id);
  if (earlier && earlier.sessionId === input.sessionId && earlier.status === "committed" && earlier.chainsResult) {
    const blockIds = (earlier.chainsResult as { blockIds?: Record<string, string> }).blockIds ?? {};
    return { status: "already-imported", version: earlier.committedVersion ?? 0, blockIds };
  }
  const session = await getSession(db, key);
  // Importing over state Condense made itself would mint the same refs twice: only into an empty session.
  if (!earlier && session && session.version > 0)
    return { status: "session-has-state", version: session.version, blockIds: {} };
  const request = await createFlushRequest(db, { ...key, id, trigger: "import" });
  const { chainsCompressed: _counted, ...stats } = input.stats ?? { chainsCompressed: 0 };
  const committed = await commitFlush(db, {
    ...key,
    flushRequestId: request.id,
    attempt: 1,
    mintRefs: [],
    writes: {
      records: input.records,
      summaries: input.summaries,
      aliases: input.aliases,
      frontier: input.frontier,
      ...(input.stats ? { stats } : {}),
      captures: [],
      metrics: {
        outcome: "empty",
        trigger: "import",
        reason: `imported from ${input.source}: ${input.records.length} record(s), ${input.summaries.length} summary(ies), ${input.chains.length} chain(s)`,
        model: input.source,
        summarizerSource: "import",
      },
    },
  });
  if (committed.status === "stale") return { status: "session-has-state", version: committed.version, blockIds: {} };
  // chainsCompressed is counted by the chain commit from the chains it writes.
  const chains = await commitChains(db, {
    ...key,
    flushRequestId: request.id,
    mintRefs: [],
    writes: { chains: input.chains, records: [] },
  });
  return {
    status: committed.status === "committed" ? "imported" : "already-imported",
    version: chains.version,
    blockIds: chains.blockIds,
  };
}
