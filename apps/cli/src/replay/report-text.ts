/** The human-readable replay report: sampled per-call table, then totals, cost and checks. */
import type { ReplayResult } from "./replay-session.ts";

const n = (x: number) => x.toLocaleString("en-US");
const usd = (x: number) => `${x < 0 ? "-" : ""}$${Math.abs(x).toFixed(Math.abs(x) >= 10 ? 2 : 4)}`;

/** About `rows` calls spread evenly over the session, always including the first and the last. */
export function sampleCalls<T>(calls: readonly T[], rows = 12): T[] {
  if (calls.length <= rows) return calls.slice();
  const out: T[] = [];
  for (let k = 0; k < rows; k++) out.push(calls[Math.round((k * (calls.length - 1)) / (rows - 1))]!);
  return out;
}

function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmtRow = (r: string[]) => r.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [fmtRow(header), widths.map((w) => "-".repeat(w)).join("  "), ...rows.map(fmtRow)].join("\n");
}

/**
 * The oracle's best schedule flushes nothing (no flush pays on the session): the policy's share of a
 * zero saving is 1 when it lost nothing, which the headline says in words rather than as "100% of 0".
 */
/** A share (1 = 100 %) as a percentage with one decimal. */
const tenths = (share: number) => Math.round(share * 1000) / 10;

const noScheduleSaves = (r: ReplayResult) =>
  r.oracle.oracleFlushes.length === 0 && r.oracle.oracleUsd >= r.oracle.noneUsd - 1e-12;

/** The headline: cost saved against both baselines, and the policy against the best schedule. */
export function headline(r: ReplayResult): string[] {
  const c = r.cost;
  const o = r.oracle;
  const sv = (x: { savedUsd: number; savedPct: number }) => `${x.savedPct}% (${usd(x.savedUsd)})`;
  const out = [
    `cost saved vs no compaction (the full history every request): ${sv(c.vsNoCompaction)}`,
    `cost saved vs as recorded (${c.hostCompactions === 0 ? "no host compaction, so the same as no compaction" : `the host's ${c.hostCompactions} compaction(s) applied where they happened, Condense on top of them`}): ${sv(c.vsRecorded)}`,
    noScheduleSaves(r)
      ? `policy vs the best flush schedule (oracle, same summaries and cost model): no schedule saves anything on this session (the oracle's best is to flush nothing); the policy made ${r.oracle.policyFlushes.length} flushes and saved ${c.vsNoCompaction.savedPct}%, ${o.share >= 1 ? "counted as matching the oracle (100%)" : "a loss, counted as 0% of the oracle"}`
      : o.replayed && o.replayed.savedUsd < c.vsNoCompaction.savedUsd
        ? `policy vs the best flush schedule (oracle, same summaries and cost model), both replayed: the oracle's ${o.oracleFlushes.length} flushes, the best schedule in the turn model, replayed at ${o.replayed.savedPct}% saved, below the policy's ${c.vsNoCompaction.savedPct}% with ${r.oracle.policyFlushes.length}: the turn model misjudges this session, so the policy's own schedule is the best known (share counted: ${tenths(o.share)}%; ${tenths(o.modelShare)}% in the turn model)`
        : o.replayed
          ? `policy vs the best flush schedule (oracle, same summaries and cost model), both replayed: ${tenths(o.share)}% of its saving (${o.replayed.savedPct}% saved by the oracle's ${o.oracleFlushes.length} flushes, ${r.oracle.policyFlushes.length} by the policy; ${tenths(o.modelShare)}% in the turn model)`
          : `policy vs the best flush schedule (oracle, same summaries and cost model), in the turn model: ${tenths(o.share)}% of its saving (${r.oracle.policyFlushes.length} flushes vs ${r.oracle.oracleFlushes.length})`,
  ];
  for (const [name, x] of [
    ["no compaction", c.vsNoCompaction],
    ["as recorded", c.vsRecorded],
  ] as const) {
    if (x.savedUsd >= 0) continue;
    const recorded = name === "as recorded";
    out.push(
      `why it cost more than ${name}: ${whyNegative(r, recorded ? c.recorded : c.raw, recorded ? c.condensedOnRecorded : c.condensed, recorded ? c.summarizerOnRecordedUsd : c.summarizerUsd)}`,
    );
  }
  return out;
}

/** A negative result, explained from the tallies: what Condense wrote and what it read. */
function whyNegative(
  r: ReplayResult,
  base: ReplayResult["cost"]["raw"],
  c: ReplayResult["cost"]["raw"],
  summarizerUsd: number,
): string {
  const extraWrites = c.cacheWriteTokens - base.cacheWriteTokens;
  const savedReads = base.cacheReadTokens - c.cacheReadTokens;
  if (extraWrites > 0) {
    return (
      `the flushes rewrote ${n(extraWrites)} more cache tokens than the baseline wrote, and saved ${n(savedReads)} cache reads; ` +
      `a written token costs many reads (Sonnet 4.5: 12.5), so too few requests followed each flush to repay its rewrite` +
      (summarizerUsd > 0 ? `; the summarizer added ${usd(summarizerUsd)}` : "")
    );
  }
  if (r.cost.hostCompactions > 0)
    return `the host's own compactions had already taken out what Condense's flushes reclaim, so they saved less than they cost`;
  return `the summarizer's bill (${usd(summarizerUsd)}) exceeded what the flushes saved`;
}

export function renderTextReport(r: ReplayResult): string {
  const lines: string[] = [];
  lines.push(`Condense replay: ${r.file}`);
  lines.push(
    `format ${r.format} · ${n(r.messages)} messages · ${n(r.calls.length)} model calls · ${(r.durationMs / 1000).toFixed(1)}s`,
  );
  lines.push(...headline(r));
  if (r.skippedLines.length > 0) {
    const shown = r.skippedLines
      .slice(0, 5)
      .map((s) => `line ${s.line}: ${s.reason}`)
      .join("; ");
    lines.push(
      `warning: partial replay, ${r.skippedLines.length} line(s) skipped (${shown}${r.skippedLines.length > 5 ? "; ..." : ""})`,
    );
  }
  for (const w of r.warnings) lines.push(`note: ${w}`);
  lines.push("");
  lines.push("Context per model call (tokens = JSON chars / 4, sampled)");
  lines.push(
    table(
      ["call", "raw", "condensed", "reclaimed"],
      sampleCalls(r.calls).map((c) => [
        `#${c.call}`,
        n(c.rawTokens),
        n(c.condensedTokens),
        `${c.rawTokens > 0 ? ((1 - c.condensedTokens / c.rawTokens) * 100).toFixed(1) : "0.0"}%`,
      ]),
    ),
  );
  lines.push("");
  const t = r.totals;
  lines.push(
    table(
      ["totals", "value"],
      [
        ["context tokens sent, raw", n(t.rawTokens)],
        ["context tokens sent, condensed", n(t.condensedTokens)],
        ["tokens reclaimed", `${n(t.reclaimedTokens)} (${t.reclaimPct}%)`],
        [
          "last context, raw -> condensed",
          `${n(t.finalRawTokens)} -> ${n(t.finalCondensedTokens)} (${t.finalReclaimPct}%)`,
        ],
        ["flushes", `${n(r.flushes.requested)}${r.flushes.timedOut ? ` (${r.flushes.timedOut} timed out)` : ""}`],
        ["summarizer calls", n(r.summarizer.calls)],
        ["summaries", n(r.summaries)],
        ["dedup hits", n(r.dedupHits)],
        ["chains compressed", n(r.chainsCompressed)],
      ],
    ),
  );
  lines.push("");
  const c = r.cost;
  lines.push(
    `Estimated cost at ${c.priceModel} list prices (cache writes where the prefix changed or the ${Math.round(c.cacheTtlMs / 1000)} s cache TTL ran out, cache reads in between)`,
  );
  lines.push(
    table(
      ["", "cache read", "cache write", "output", "cost"],
      [
        [
          "no compaction",
          n(c.raw.cacheReadTokens),
          n(c.raw.cacheWriteTokens),
          n(c.raw.outputTokens),
          usd(c.raw.costUsd),
        ],
        [
          "as recorded",
          n(c.recorded.cacheReadTokens),
          n(c.recorded.cacheWriteTokens),
          n(c.recorded.outputTokens),
          usd(c.recorded.costUsd),
        ],
        [
          "condensed",
          n(c.condensed.cacheReadTokens),
          n(c.condensed.cacheWriteTokens),
          n(c.condensed.outputTokens),
          usd(c.condensed.costUsd),
        ],
        ["summarizer", "", "", "", usd(c.summarizerUsd)],
        ["saved vs no compaction", "", "", "", `${usd(c.vsNoCompaction.savedUsd)} (${c.vsNoCompaction.savedPct}%)`],
        ["saved vs as recorded", "", "", "", `${usd(c.vsRecorded.savedUsd)} (${c.vsRecorded.savedPct}%)`],
      ],
    ),
  );
  lines.push("");
  const o = r.oracle;
  lines.push("Flush schedules under the oracle's turn model (each turn's summaries as this replay made them)");
  lines.push(
    table(
      ["schedule", "flushes", "cost"],
      [
        ["no flush", "0", usd(o.noneUsd)],
        ["this policy", n(o.policyFlushes.length), usd(o.policyUsd)],
        ["oracle (best)", n(o.oracleFlushes.length), usd(o.oracleUsd)],
      ],
    ),
  );
  if (o.replayed)
    lines.push(
      `The oracle's schedule replayed like the policy: ${usd(o.replayed.costUsd)} (${o.replayed.savedPct}% saved vs no compaction); the policy's share of it: ${tenths(o.share)}%`,
    );
  lines.push("");
  if (r.invariantViolations.length === 0 && r.renderFailures.length === 0)
    lines.push("checks: tool pairing held in every rendered request; no render failed open");
  else {
    for (const v of r.invariantViolations) lines.push(`INVARIANT VIOLATION ${v}`);
    for (const f of r.renderFailures) lines.push(`render failed open: ${f}`);
  }
  return `${lines.join("\n")}\n`;
}
