/**
 * context_tree_query output (CAP-QUERY-2/3): one block per hit of `recordsForId` (state.ts), joined by
 * a rule. Core does no I/O, so bodies of stored (oversized) records are passed in by the caller; a body
 * that cannot be loaded falls back to the stored preview. Long bodies are cut to their head lines with
 * the host's default limits (2000 lines, 50 KiB), so one recovery cannot flood the context.
 */
import { recordsForId, type CondenseState, type QueryHit } from "./state.ts";
import type { ToolCallRecord } from "./state-types.ts";
import {
  QUERY_BLOCK_SEPARATOR,
  QUERY_LEGACY_OCCURRENCE_LINE,
  QUERY_NOT_FOUND_LINE,
  QUERY_STORED_UNAVAILABLE,
  queryLabelLine,
  queryTruncatedLine,
} from "./texts.ts";

export interface HeadLimits { maxLines: number; maxBytes: number }
export const DEFAULT_HEAD_LIMITS: Readonly<HeadLimits> = Object.freeze({ maxLines: 2000, maxBytes: 50 * 1024 });

/** Full body of a stored record, as loaded by the caller; undefined when it could not be loaded. */
export type StoredBodyLookup = (record: ToolCallRecord) => string | undefined;

export interface QueryOutput {
  text: string;
  /** label -> record, for the tool result's details. */
  results: Record<string, ToolCallRecord>;
}

function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) { n += 4; i++; }
    else n += 3;
  }
  return n;
}

export interface HeadCut { text: string; truncated: boolean; shownLines: number; totalLines: number }

/** Whole leading lines within both limits (a first line over the byte limit shows nothing). */
export function headTruncate(text: string, limits: HeadLimits = DEFAULT_HEAD_LIMITS): HeadCut {
  const lines = text.split("\n");
  const total = lines.length;
  if (total <= limits.maxLines && utf8Length(text) <= limits.maxBytes) return { text, truncated: false, shownLines: total, totalLines: total };
  let bytes = 0;
  let shown = 0;
  for (; shown < total && shown < limits.maxLines; shown++) {
    const add = utf8Length(lines[shown]!) + (shown > 0 ? 1 : 0);
    if (bytes + add > limits.maxBytes) break;
    bytes += add;
  }
  return { text: lines.slice(0, shown).join("\n"), truncated: true, shownLines: shown, totalLines: total };
}

function bodyOf(record: ToolCallRecord, storedBody: StoredBodyLookup | undefined): string {
  if (!record.stored) return record.resultText;
  const full = storedBody?.(record);
  if (typeof full === "string") return full;
  return record.stored.preview ? record.stored.preview : QUERY_STORED_UNAVAILABLE;
}

function argsJson(args: unknown): string {
  try { return JSON.stringify(args ?? {}, null, 2) ?? "{}"; } catch { return "{}"; }
}

/** One hit's block: label, legacy marker (multi-record sets only), tool, args, status, turn, body. */
export function formatQueryBlock(hit: QueryHit, body: string, limits: HeadLimits = DEFAULT_HEAD_LIMITS): string {
  const r = hit.record;
  const lines = [queryLabelLine(hit.label)];
  if (hit.legacy) lines.push(QUERY_LEGACY_OCCURRENCE_LINE);
  lines.push(`Tool: ${r.toolName}`, `Args: ${argsJson(r.args)}`, `Status: ${r.isError ? "ERROR" : "OK"}`, `Turn: ${r.turnIndex}`, "");
  const cut = headTruncate(body, limits);
  lines.push(cut.truncated ? `${cut.text}\n${queryTruncatedLine(cut.shownLines, cut.totalLines)}` : cut.text);
  return lines.join("\n");
}

export function formatQueryNotFound(id: string): string {
  return `${queryLabelLine(id)}\n${QUERY_NOT_FOUND_LINE}`;
}

/** The whole tool output for the requested ids, in request order. */
export function formatQueryOutput(
  state: CondenseState,
  ids: readonly string[],
  storedBody?: StoredBodyLookup,
  limits: HeadLimits = DEFAULT_HEAD_LIMITS,
): QueryOutput {
  const blocks: string[] = [];
  const results: Record<string, ToolCallRecord> = {};
  for (const id of ids) {
    const hits = recordsForId(state, id);
    if (hits.length === 0) { blocks.push(formatQueryNotFound(id)); continue; }
    for (const h of hits) {
      blocks.push(formatQueryBlock(h, bodyOf(h.record, storedBody), limits));
      results[h.label] = h.record;
    }
  }
  return { text: blocks.join(QUERY_BLOCK_SEPARATOR), results };
}
