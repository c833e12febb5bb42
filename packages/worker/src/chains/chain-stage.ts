/**
 * Chain compression after a committed flush (CAP-FLUSH-10, CAP-CHAIN-2..11): eligibility over the
 * chains the request carries with the rolling window and grace deferral, core's plan (covered chains
 * reuse their per-batch summaries, optionally fused by one summarizer call; uncovered chains get
 * records backfilled from capture rows and the deterministic body), then one `commitChains`.
 *
 * Determinism: `compressedAt` is the request's own timestamp, refs and block ids are minted inside
 * the commit from the session counters, and the commit is stored on the request, so a re-run after a
 * crash writes the same rows or nothing. Fusion failures are non-fatal (the entry keeps the
 * concatenated bodies); a database failure is thrown so the job retries the stage.
 */
import {
  buildState,
  chainLookupKeys,
  deterministicChainBody,
  planChainCompression,
  selectEligibleChains,
  withFusedSummary,
  type CondenseSettings,
  type CoveredChainPlan,
  type DeterministicChainPlan,
  type ToolCallRecord,
} from "@condense/core";
import {
  commitChains,
  compressedChainStarts,
  getStateDelta,
  loadCapturesByKeys,
  type ChainWrite,
  type ChainWrites,
  type CommitChainsResult,
  type Db,
  type DiagnosticWrite,
  type FlushRequest,
  type MintedRefs,
  type RecordWrite,
} from "@condense/db";
import type { Summarizer } from "@condense/summarizer";
import type { FlushHooks } from "../crash-hooks.ts";
import { mapBounded } from "../map-bounded.ts";
import { detectionFromCaptures } from "./detection-from-captures.ts";
import { parseRequestChains } from "./request-chains.ts";

export interface ChainStageDeps {
  db: Db;
  summarizer: Summarizer;
  hooks?: FlushHooks;
  fusionConcurrency?: number;
}

export interface ChainStageResult {
  status: "skipped" | "committed" | "already-committed" | "nothing-eligible";
  compressed: number;
  blockIds: Record<string, string>;
  fused: number;
  fusionFailures: number;
  skippedChains: number;
}

const none = (status: ChainStageResult["status"]): ChainStageResult => ({
  status,
  compressed: 0,
  blockIds: {},
  fused: 0,
  fusionFailures: 0,
  skippedChains: 0,
});

export async function runChainStage(
  deps: ChainStageDeps,
  request: FlushRequest,
  settings: CondenseSettings,
  signal: AbortSignal,
): Promise<ChainStageResult> {
  if (request.chainsResult)
    return {
      ...none("already-committed"),
      blockIds: (request.chainsResult as { blockIds?: Record<string, string> }).blockIds ?? {},
    };
  const { chains, graceKeys } = parseRequestChains(request.chains);
  if (chains.length === 0) return none("skipped");
  const key = { tenantId: request.tenantId, sessionId: request.sessionId };
  // Every request that carries chains ends with a chains commit, even an empty one, so "stage done"
  // is a fact on the request row and a lost stage can be found and re-run (requeue-sweeper.ts).
  const closeEmpty = async (status: ChainStageResult["status"], skippedChains = 0): Promise<ChainStageResult> => {
    await commitChains(deps.db, {
      ...key,
      flushRequestId: request.id,
      mintRefs: [],
      writes: { chains: [], records: [] },
    });
    return { ...none(status), skippedChains };
  };
  if (!settings.chainCompression.enabled) return closeEmpty("skipped");
  // Most flushes have no chain old enough to compress: that is decided on the compressed starts
  // alone, before the whole state (every record with its original text) is read for the plan. (A
  // chain another flush compresses meanwhile is left out by the commit, which checks the starts again.)
  const starts = chains.flatMap((c) => (c.startUserTimestamp === null ? [] : [c.startUserTimestamp]));
  const compressed = await compressedChainStarts(deps.db, key, starts);
  const alreadyCompressed = [...compressed].map((startUserTimestamp) => ({ startUserTimestamp }));
  const eligible = selectEligibleChains(
    chains,
    { chains: alreadyCompressed },
    { rollingWindow: settings.chainCompression.rollingWindow, graceKeys },
  );
  if (eligible.length === 0) return closeEmpty("nothing-eligible");
  const delta = await getStateDelta(deps.db, { ...key, since: 0 });
  if (!delta) return none("skipped");
  const state = buildState(
    delta.toVersion,
    delta.records,
    delta.summaries,
    delta.aliases,
    delta.chains,
    delta.frontier ?? null,
    delta.stats ?? {
      totalInputTokens: 0,
      totalOutputTokens: 0,
      totalCost: 0,
      callCount: 0,
      chainsCompressed: 0,
      rangesSummarized: 0,
    },
  );

  const rows = await loadCapturesByKeys(deps.db, { ...key, keys: eligible.flatMap((c) => c.middleOccurrenceKeys) });
  const detection = detectionFromCaptures(eligible, rows);
  const plan = planChainCompression(detection, eligible, state, {
    compressedAt: request.requestedAt.getTime(),
    settings,
  });

  const covered = plan.items.filter((i): i is CoveredChainPlan => i.kind === "covered");
  const deterministic = plan.items.filter((i): i is DeterministicChainPlan => i.kind === "deterministic");
  const skipped = plan.items.filter((i) => i.kind === "skip");

  // CAP-CHAIN-7: one fusion call per chain with >= 2 distinct per-batch summaries.
  const fusedEntries = new Map<CoveredChainPlan, ChainWrite>();
  const usage = { totalInputTokens: 0, totalOutputTokens: 0, totalCost: 0, callCount: 0, rangesSummarized: 0 };
  let fusionFailures = 0;
  await mapBounded(
    covered.filter((c) => c.fuse),
    deps.fusionConcurrency ?? 4,
    async (item) => {
      try {
        const r = await deps.summarizer.summarizeRange(item.summaryTexts, { signal });
        usage.totalInputTokens += r.usage.input;
        usage.totalOutputTokens += r.usage.output;
        usage.totalCost += r.cost;
        usage.callCount++;
        // An extractive join is not a range summary: the renderer's own concatenation is the same text.
        if (r.bodySource === "deterministic") return;
        const entry = withFusedSummary(item.entry, r.text);
        if (entry !== item.entry) usage.rangesSummarized++;
        fusedEntries.set(item, withoutBlockId(entry));
      } catch {
        if (signal.aborted) throw signal.reason instanceof Error ? signal.reason : new Error("chain stage aborted");
        fusionFailures++;
      }
    },
  );

  const diagnostics: DiagnosticWrite[] = skipped.flatMap((s) =>
    s.kind === "skip" && s.diagnostic
      ? [{ kind: s.diagnostic.kind, dedupKey: s.diagnostic.dedupKey, detail: s.diagnostic.detail }]
      : [],
  );
  if (covered.length + deterministic.length === 0 && diagnostics.length === 0)
    return closeEmpty("nothing-eligible", skipped.length);

  const mint = deterministic.map((d) => d.fresh.map((r) => r.key));
  const writes = (minted: MintedRefs): ChainWrites => {
    deps.hooks?.reached("in-chain-commit");
    const records: RecordWrite[] = [];
    const chainWrites: ChainWrite[] = [];
    let group = 0;
    // Plan order, so block ids follow chain order whatever path each chain took.
    for (const item of plan.items) {
      if (item.kind === "covered") {
        chainWrites.push(fusedEntries.get(item) ?? withoutBlockId(item.entry));
        continue;
      }
      if (item.kind !== "deterministic") continue;
      const refs = minted.groups[group++]!;
      const fresh: ToolCallRecord[] = item.fresh.map((r, j) => ({ ...r, shortRef: refs[j]! }));
      for (const r of fresh) {
        const body = item.storedBodies.get(r.key);
        records.push(body !== undefined ? { ...r, storedBody: body } : r);
      }
      // Core numbered the plan from the state's max ref; the commit minted from the session counter.
      const mintedByKey = new Map(fresh.map((r) => [r.key, r.shortRef!]));
      const toolRefs: string[] = [];
      for (const k of chainLookupKeys(item.chain)) {
        const ref = state.keyToRef.get(k) ?? mintedByKey.get(k);
        if (ref && !toolRefs.includes(ref)) toolRefs.push(ref);
      }
      const body = deterministicChainBody([...item.indexed, ...fresh], toolRefs);
      chainWrites.push(withoutBlockId({ ...item.entry, toolRefs, rangeSummaryText: body }));
    }
    return { chains: chainWrites, records, stats: usage, diagnostics };
  };
  const result: CommitChainsResult = await commitChains(deps.db, {
    ...key,
    flushRequestId: request.id,
    mintRefs: mint,
    writes,
  });
  return {
    status: result.status,
    compressed: Object.keys(result.blockIds).length,
    blockIds: result.blockIds,
    fused: usage.rangesSummarized,
    fusionFailures,
    skippedChains: skipped.length,
  };
}

function withoutBlockId(entry: { blockId: string } & ChainWrite): ChainWrite {
  const { blockId: _b, ...rest } = entry;
  return rest;
}
