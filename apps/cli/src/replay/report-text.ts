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

export function renderTextReport(r: ReplayResult): string {
  const lines: string[] = [];
  lines.push(`Condense replay: ${r.file}`);
  lines.push(`format ${r.format} · ${n(r.messages)} messages · ${n(r.calls.length)} model calls · ${(r.durationMs / 1000).toFixed(1)}s`);
  if (r.skippedLines.length > 0) {
    const shown = r.skippedLines.slice(0, 5).map((s) => `line ${s.line}: ${s.reason}`).join("; ");
    lines.push(`warning: partial replay, ${r.skippedLines.length} line(s) skipped (${shown}${r.skippedLines.length > 5 ? "; ..." : ""})`);
  }
  for (const w of r.warnings) lines.push(`note: ${w}`);
  lines.push("");
  lines.push("Context per model call (tokens = JSON chars / 4, sampled)");
  lines.push(table(["call", "raw", "condensed", "reclaimed"], sampleCalls(r.calls).map((c) => [
    `#${c.call}`, n(c.rawTokens), n(c.condensedTokens), `${c.rawTokens > 0 ? ((1 - c.condensedTokens / c.rawTokens) * 100).toFixed(1) : "0.0"}%`,
  ])));
  lines.push("");
  const t = r.totals;
  lines.push(table(["totals", "value"], [
    ["context tokens sent, raw", n(t.rawTokens)],
    ["context tokens sent, condensed", n(t.condensedTokens)],
    ["tokens reclaimed", `${n(t.reclaimedTokens)} (${t.reclaimPct}%)`],
    ["last context, raw -> condensed", `${n(t.finalRawTokens)} -> ${n(t.finalCondensedTokens)} (${t.finalReclaimPct}%)`],
    ["flushes", `${n(r.flushes.requested)}${r.flushes.timedOut ? ` (${r.flushes.timedOut} timed out)` : ""}`],
    ["summarizer calls", n(r.summarizer.calls)],
    ["summaries", n(r.summaries)],
    ["dedup hits", n(r.dedupHits)],
    ["chains compressed", n(r.chainsCompressed)],
  ]));
  lines.push("");
  const c = r.cost;
  lines.push(`Estimated input cost at ${c.priceModel} list prices (cache writes where the prefix changed, cache reads in between)`);
  lines.push(table(["", "cache read", "cache write", "output", "cost"], [
    ["raw", n(c.raw.cacheReadTokens), n(c.raw.cacheWriteTokens), n(c.raw.outputTokens), usd(c.raw.costUsd)],
    ["condensed", n(c.condensed.cacheReadTokens), n(c.condensed.cacheWriteTokens), n(c.condensed.outputTokens), usd(c.condensed.costUsd)],
    ["summarizer", "", "", "", usd(c.summarizerUsd)],
    ["saved", "", "", "", `${usd(c.savedUsd)} (${c.savedPct}%)`],
  ]));
  lines.push("");
  if (r.invariantViolations.length === 0 && r.renderFailures.length === 0) lines.push("checks: tool pairing held in every rendered request; no render failed open");
  else {
    for (const v of r.invariantViolations) lines.push(`INVARIANT VIOLATION ${v}`);
    for (const f of r.renderFailures) lines.push(`render failed open: ${f}`);
  }
  return `${lines.join("\n")}\n`;
}
