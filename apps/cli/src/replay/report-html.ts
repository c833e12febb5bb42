/**
 * A self-contained HTML replay report: the totals and an inline SVG plot of raw vs condensed context
 * over the model calls. No scripts, fonts or external assets, so it can be mailed or attached.
 */
import { renderTextReport } from "./report-text.ts";
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
  const line = (key: "rawTokens" | "condensedTokens") => calls.map((c, i) => `${x(i).toFixed(1)},${y(c[key]).toFixed(1)}`).join(" ");
  const ticks = [0, 0.25, 0.5, 0.75, 1].map((f) => {
    const v = Math.round(maxY * f);
    return `<line x1="${pad.l}" x2="${pad.l + w}" y1="${y(v).toFixed(1)}" y2="${y(v).toFixed(1)}" stroke="#e5e7eb"/>` +
      `<text x="${pad.l - 6}" y="${(y(v) + 4).toFixed(1)}" text-anchor="end" font-size="11" fill="#555">${v >= 1000 ? `${Math.round(v / 1000)}k` : v}</text>`;
  }).join("");
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

export function renderHtmlReport(r: ReplayResult): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Condense replay — ${esc(r.file)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:960px;margin:2rem auto;padding:0 1rem;color:#111}pre{background:#f6f8fa;padding:1rem;overflow:auto;font-size:12px}h1{font-size:1.3rem}.big{font-size:1.1rem}</style>
</head><body>
<h1>Condense replay</h1>
<p class="big">${esc(r.file)} (${esc(r.format)}): ${r.totals.reclaimPct}% of context tokens reclaimed over ${r.calls.length} model calls; last context ${r.totals.finalRawTokens.toLocaleString("en-US")} → ${r.totals.finalCondensedTokens.toLocaleString("en-US")} tokens.</p>
${contextPlotSvg(r.calls)}
<pre>${esc(renderTextReport(r))}</pre>
</body></html>
`;
}
