/**
 * Every text Condense puts in front of the model or the user from the render path, in one place:
 * result stubs, the synthetic chain block, the purged-arguments placeholder, the footer status line
 * and its segments. The wording is Condense's own; the information and structure follow the spec
 * (CAP-RENDER-4/5/7/14, CAP-UX-1/2, CAP-DIAG-5).
 *
 * Everything here is a pure function of its arguments, so a stub renders byte-identically on every
 * render (the prompt-cache prefix depends on it, CAP-RENDER-2).
 */

/** Name of the recovery tool the model calls (CAP-QUERY-1). */
export const QUERY_TOOL_NAME = "context_tree_query";

// ---------------------------------------------------------------- result stubs (CAP-RENDER-4/5)

/**
 * Stub that replaces a summarized tool result. `ref` is the short ref (`tN`) registered for the
 * occurrence, else the raw tool-call id (legacy summaries, aliases of ref-less originals).
 */
export function summaryStubText(ref: string): string {
  return `[Condensed: this output is summarized in a Condense summary under ref \`${ref}\`. Call ${QUERY_TOOL_NAME} with that ref to get the full output back.]`;
}

export interface StoredStubInput {
  toolName: string;
  /** UTF-8 byte length of the full body; null when unknown. */
  bytes: number | null;
  preview: string;
  /** Short ref when the record has one, else the raw tool-call id. */
  ref: string;
}

/**
 * Stub for an oversized output that Condense stores server-side instead of inline (the service's
 * replacement for pi-condense's sidecar file): size, tool, head preview, and how to get it back.
 */
export function storedStubText(s: StoredStubInput): string {
  return [
    `[Oversized output stored by Condense: ${s.bytes ?? "?"} bytes.]`,
    `Tool: ${s.toolName}`,
    "Preview (head):",
    s.preview,
    `Full output: call ${QUERY_TOOL_NAME} with ref \`${s.ref}\`.`,
  ].join("\n");
}

// ---------------------------------------------------------------- chain block (CAP-RENDER-14)

export const CHAIN_OPEN_PREFIX = "<compressed-chain";
export const CHAIN_CLOSE_TAG = "</compressed-chain>";

/** The opening tag up to and including the id attribute; used to detect an already-inserted block. */
export function chainIdTagPrefix(blockId: string): string {
  return `${CHAIN_OPEN_PREFIX} id="${blockId}"`;
}

export function chainOpenTag(blockId: string, toolRefs: readonly string[]): string {
  return `${chainIdTagPrefix(blockId)} tools="${toolRefs.join(",")}">`;
}

/** One relocated protected result inside a chain block (CAP-PROT-4). Starts with a blank line. */
export function protectedOutputBlock(toolName: string, text: string): string {
  return `\n\n<protected-output tool="${toolName}">\n${text}\n</protected-output>`;
}

/** Full text of the synthetic user message standing in for a compressed chain. */
export function compressedChainText(
  blockId: string,
  toolRefs: readonly string[],
  body: string,
  protectedBlocks: string,
): string {
  return `${chainOpenTag(blockId, toolRefs)}\n${body}${protectedBlocks}\n${CHAIN_CLOSE_TAG}`;
}

/** True for the text of a synthetic chain message (after leading whitespace, as chain detection reads it). */
export function isCompressedChainText(text: string): boolean {
  return text.trimStart().startsWith(CHAIN_OPEN_PREFIX);
}

// ---------------------------------------------------------------- error purge (CAP-RENDER-7)

/** Replacement `arguments` of a long-errored tool call; `size` = chars of the original JSON arguments. */
export function purgedArgs(size: number): { _purged: string } {
  return { _purged: `<condense-purged-error-args size="${size}"/>` };
}

// ---------------------------------------------------------------- footer (CAP-UX-1/2, CAP-DIAG-5)

/** Bar that prefixes every footer widget text (U+2502). */
export const FOOTER_BAR = "\u2502 ";
const DOT = " \u00b7 ";

export const SUMMARIZING_STATUS = "condense: summarizing\u2026";
export const RECOVERED_PENDING_STATUS = "condense: recovered pending (reload)";
export function pendingStatusText(n: number): string {
  return `condense: ${n} pending`;
}

/** ≥1,000,000 -> one decimal + M; ≥1,000 -> one decimal + k; else an integer. */
export function formatCount(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1_000) return `${(n / 1_000).toFixed(1)}k`;
  return String(Math.round(n));
}

/** ` · <B>-><A> (-<P>%)` in tokens (chars/4); empty without a positive measurement. */
export function reclaimSegment(beforeChars: number, afterChars: number): string {
  const b = Math.round(beforeChars / 4);
  const a = Math.round(afterChars / 4);
  if (!(b > 0)) return "";
  const pct = Math.max(0, Math.round((1 - a / b) * 100));
  return `${DOT}${formatCount(b)}->${formatCount(a)} (-${pct}%)`;
}

export interface DiagCounts {
  u: number;
  m: number;
  o: number;
  b: number;
}

/** ` · diag u1/o2`: the non-zero counters in u/m/o/b order; empty when all are zero. */
export function diagSegment(c: DiagCounts): string {
  const parts: string[] = [];
  if (c.u > 0) parts.push(`u${c.u}`);
  if (c.m > 0) parts.push(`m${c.m}`);
  if (c.o > 0) parts.push(`o${c.o}`);
  if (c.b > 0) parts.push(`b${c.b}`);
  return parts.length === 0 ? "" : `${DOT}diag ${parts.join("/")}`;
}

export interface FooterMetrics {
  openCycleThinkingTokens: number;
  frontierGapTokens: number;
  largestChainSharePct: number;
}

/** ` · think Nk · gap Nk · chain P%`, only when there is a frontier gap. */
export function metricsSegment(m: FooterMetrics | null | undefined): string {
  if (!m || !(m.frontierGapTokens > 0)) return "";
  return `${DOT}think ${formatCount(m.openCycleThinkingTokens)}${DOT}gap ${formatCount(m.frontierGapTokens)}${DOT}chain ${m.largestChainSharePct}%`;
}

export interface StatusLineInput {
  enabled: boolean;
  /** Last pruned render's sizes (CAP-RENDER-21); null before any pruned render. */
  reclaim?: { beforeChars: number; afterChars: number } | null;
  diag?: DiagCounts | null;
  metrics?: FooterMetrics | null;
}

/** The computed status text (CAP-UX-2), without the bar. */
export function statusLineText(s: StatusLineInput): string {
  if (!s.enabled) return "condense: OFF";
  const reclaim = s.reclaim ? reclaimSegment(s.reclaim.beforeChars, s.reclaim.afterChars) : "";
  const diag = s.diag ? diagSegment(s.diag) : "";
  return `condense: ON${reclaim}${diag}${metricsSegment(s.metrics)}`;
}

/** Footer widget text (`│ ` + text), or null when the status line is turned off (the widget is cleared). */
export function footerWidgetText(showStatusLine: boolean, text: string): string | null {
  return showStatusLine ? FOOTER_BAR + text : null;
}

// ---------------------------------------------------------------- recovery output (CAP-QUERY-2)

export function queryLabelLine(label: string): string {
  return `## toolRef: ${label}`;
}
export const QUERY_LEGACY_OCCURRENCE_LINE = "Occurrence: legacy (no resultTimestamp)";
export const QUERY_NOT_FOUND_LINE = "(not in the Condense index; it may not have been summarized yet)";
export const QUERY_STORED_UNAVAILABLE =
  "(stored output unavailable: the full body could not be loaded and no preview was kept)";
export const QUERY_BLOCK_SEPARATOR = "\n\n---\n\n";
/** The call that returns the page at `offset` of the body labelled `label` (labels always resolve). */
export function queryNextPageCall(label: string, offset: number): string {
  return `${QUERY_TOOL_NAME} with ${JSON.stringify({ toolCallIds: [label], offset })}`;
}

/**
 * The last line of a page that does not reach the end of its body: which characters it holds and
 * exactly which call returns the rest. The page text ends right before this line's newline, so the
 * pages concatenate to the original.
 */
export function queryPageCutLine(label: string, start: number, end: number, total: number): string {
  return `[Output truncated: characters ${start}-${end} of ${total} shown. Next page: call ${queryNextPageCall(label, end)}]`;
}

/** The last line of the final page of a body that was asked for from an offset past 0. */
export function queryLastPageLine(start: number, end: number, total: number): string {
  return `[End of output: characters ${start}-${end} of ${total} shown; this is the last page.]`;
}
