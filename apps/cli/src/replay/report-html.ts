/**
 * A self-contained HTML replay report: the totals and an inline SVG plot of raw vs condensed context
 * over the model calls. No scripts, fonts or external assets, so it can be mailed or attached.
 */
import { headline, renderTextReport } from "./report-text.ts";
import type { ReplayResult } from "./replay-session.ts";

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

export function contextPlotSvg(calls: ReplayResult["calls"], width = 880, height = 320): string {
  const pad = { l: 64, r: 16, t: 16, b: 36 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const maxY = Math.max(1, ...calls.map((c) => c.rawTokens));
  const maxX = Math.max(1, calls.length - 1);
  const x = (i: number) => pad.l + (i / maxX) * w;
  const y = (v: number) => pad.t + h - (v / maxY) * h;
  const line = (key: "rawTokens" | "condensedTokens") =>
    calls.map((c, i) => `${x(i).toFixed(1)},${y(c[key]).toFixed(1)}`).join(" ");
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const v = Math.round(maxY * f);
      return (
        `<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/>` +
        `<text x="${pad.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#555">${v >= 1000 ? `${Math.round(v / 1000)}k` : v}</text>`
      );
    })
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="context tokens per model call, raw and condensed">
${ticks}
<line x1="${pad.l}" x2="${pad.l + w}" y1="${pad.t + h}" y2="${pad.t + h}" stroke="#999"/>
<text x="${pad.l + w / 2}" y="${height - 6}" text-anchor="middle" font-size="12" fill="#333">model call (1 .. ${calls.length})</text>
<polyline fill="none" stroke="#dc2626" stroke-width="1.5" points="${line("rawTokens")}"/>
<polyline fill="none" stroke="#2563eb" stroke-width="1.5" points="${line("condensedTokens")}"/>
<rect x="${pad.l + 8}" y="${pad.t + 4}" width="10" height="10" fill="#dc2626"/><text x="${pad.l + 22}" y="${pad.t + 13}" font-size="12">raw context</text>
<rect x="${pad.l + 108}" y="${pad.t + 4}" width="10" height="10" fill="#2563eb"/><text x="${pad.l + 122}" y="${pad.t + 13}" font-size="12">condensed</text>
</svg>`;
}

type Series = { label: string; color: string; values: number[]; dashed?: boolean };

/** A line plot of several series over the model calls, with vertical flush markers. */
export function seriesPlotSvg(
  title: string,
  series: Series[],
  flushAtCalls: readonly number[],
  format: (v: number) => string,
  width = 880,
  height = 300,
): string {
  const pad = { l: 72, r: 16, t: 28, b: 36 };
  const w = width - pad.l - pad.r;
  const h = height - pad.t - pad.b;
  const count = Math.max(1, ...series.map((s) => s.values.length));
  const maxY = Math.max(1e-12, ...series.flatMap((s) => s.values));
  const x = (i: number) => pad.l + (count > 1 ? (i / (count - 1)) * w : 0);
  const y = (v: number) => pad.t + h - (v / maxY) * h;
  const ticks = [0, 0.25, 0.5, 0.75, 1]
    .map((f) => {
      const v = maxY * f;
      return (
        `<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/>` +
        `<text x="${pad.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#555">${esc(format(v))}</text>`
      );
    })
    .join("");
  const markers = flushAtCalls
    .map(
      (c) =>
        `<line x1="${x(c - 1).toFixed(1)}" x2="${x(c - 1).toFixed(1)}" y1="${pad.t}" y2="${pad.t + h}" stroke="#16a34a" stroke-opacity="0.35" stroke-dasharray="2,3"/>`,
    )
    .join("");
  const lines = series
    .map(
      (s) =>
        `<polyline fill="none" stroke="${s.color}" stroke-width="1.5"${s.dashed ? ' stroke-dasharray="5,3"' : ""} points="${s.values.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ")}"/>`,
    )
    .join("\n");
  const legend = [...series.map((s) => ({ label: s.label, color: s.color })), { label: "flush", color: "#16a34a" }]
    .map(
      (s, i) =>
        `<rect x="${pad.l + 8 + i * 150}" y="${pad.t - 20}" width="10" height="10" fill="${s.color}"/><text x="${pad.l + 22 + i * 150}" y="${pad.t - 11}" font-size="12">${esc(s.label)}</text>`,
    )
    .join("");
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${esc(title)}">
${ticks}${markers}
<line x1="${pad.l}" x2="${pad.l + w}" y1="${pad.t + h}" y2="${pad.t + h}" stroke="#999"/>
<text x="${pad.l + w / 2}" y="${height - 6}" text-anchor="middle" font-size="12" fill="#333">${esc(title)} · model call (1 .. ${count})</text>
${lines}
${legend}
</svg>`;
}

const cumulative = (xs: number[]) => {
  let t = 0;
  return xs.map((v) => (t += v));
};

export function renderHtmlReport(r: ReplayResult): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Condense replay — ${esc(r.file)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#111}pre{background:#f6f8fa;padding:1rem;overflow:auto;font-size:12px}h1{font-size:1.3rem}.big{font-size:1.1rem}</style>
</head><body>
<h1>Condense replay</h1>
<ul class="big">${headline(r)
    .map((l) => `<li>${esc(l)}</li>`)
    .join("")}</ul>
${seriesPlotSvg(
  "cumulative cost (USD)",
  [
    { label: "no compaction", color: "#dc2626", values: cumulative(r.calls.map((c) => c.rawCostUsd)) },
    { label: "as recorded", color: "#f59e0b", values: cumulative(r.calls.map((c) => c.recordedCostUsd)), dashed: true },
    { label: "Condense", color: "#2563eb", values: cumulative(r.calls.map((c) => c.condensedCostUsd)) },
  ],
  r.flushAtCalls,
  (v) => `$${v.toFixed(v >= 10 ? 0 : 2)}`,
)}
${seriesPlotSvg(
  "cache-write tokens per call",
  [
    { label: "no compaction", color: "#dc2626", values: r.calls.map((c) => c.rawWriteTokens) },
    { label: "Condense", color: "#2563eb", values: r.calls.map((c) => c.condensedWriteTokens) },
  ],
  r.flushAtCalls,
  (v) => (v >= 1000 ? `${Math.round(v / 1000)}k` : String(Math.round(v))),
)}
<p>${esc(r.file)} (${esc(r.format)}): ${r.totals.reclaimPct}% of context tokens reclaimed over ${r.calls.length} model calls; last context ${r.totals.finalRawTokens.toLocaleString("en-US")} → ${r.totals.finalCondensedTokens.toLocaleString("en-US")} tokens.</p>
${contextPlotSvg(r.calls)}
<pre>${esc(renderTextReport(r))}</pre>
</body></html>
`;
}
