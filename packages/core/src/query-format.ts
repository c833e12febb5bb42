/**
 * context_tree_query output (CAP-QUERY-2/3): one block per hit of `recordsForId` (state.ts), joined by
 * a rule. Core does no I/O, so bodies of stored (oversized) records are passed in by the caller; a body
 * that cannot be loaded falls back to the stored preview. A long body is served one page at a time
 * (query-page.ts, the host's default limits of 2,000 lines and 50 KiB), and every cut names the call
 * that returns the next page.
 */
import { recordsForId, type CondenseState, type QueryHit } from "./state.ts";
import type { ToolCallRecord } from "./state-types.ts";
import {
  QUERY_BLOCK_SEPARATOR,
  QUERY_LEGACY_OCCURRENCE_LINE,
  QUERY_NOT_FOUND_LINE,
  QUERY_STORED_UNAVAILABLE,
  queryLabelLine,
  queryLastPageLine,
  queryPageCutLine,
} from "./texts.ts";
import { bodyPage, DEFAULT_PAGE_LIMITS, type BodyPage, type PageLimits } from "./query-page.ts";

/** Full body of a stored record, as loaded by the caller; undefined when it could not be loaded. */
export type StoredBodyLookup = (record: ToolCallRecord) => string | undefined;

export interface QueryOutput {
  text: string;
  /** label -> record, for the tool result's details. */
  results: Record<string, ToolCallRecord>;
}

function bodyOf(record: ToolCallRecord, storedBody: StoredBodyLookup | undefined): string {
  if (!record.stored) return record.resultText;
  const full = storedBody?.(record);
  if (typeof full === "string") return full;
  return record.stored.preview ? record.stored.preview : QUERY_STORED_UNAVAILABLE;
}

function argsJson(args: unknown): string {
  try {
    return JSON.stringify(args ?? {}, null, 2) ?? "{}";
  } catch {
    return "{}";
  }
}

/**
 * One hit's block: label, legacy marker (multi-record sets only), tool, args, status, turn, then the
 * page of the body. A page that stops before the end is followed by one line naming the call that
 * returns the next page; a later page that reaches the end says so. Either line follows the page
 * after exactly one newline, so the page text is recoverable from the block verbatim.
 */
export function formatQueryBlock(hit: QueryHit, page: BodyPage | string): string {
  const p = typeof page === "string" ? bodyPage(page) : page;
  const r = hit.record;
  const lines = [queryLabelLine(hit.label)];
  if (hit.legacy) lines.push(QUERY_LEGACY_OCCURRENCE_LINE);
  lines.push(
    `Tool: ${r.toolName}`,
    `Args: ${argsJson(r.args)}`,
    `Status: ${r.isError ? "ERROR" : "OK"}`,
    `Turn: ${r.turnIndex}`,
    "",
  );
  if (p.next !== null) lines.push(`${p.text}\n${queryPageCutLine(hit.label, p.offset, p.end, p.total)}`);
  else if (p.offset > 0) lines.push(`${p.text}\n${queryLastPageLine(p.offset, p.end, p.total)}`);
  else lines.push(p.text);
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
  limits: PageLimits = DEFAULT_PAGE_LIMITS,
  offset = 0,
): QueryOutput {
  const blocks: string[] = [];
  const results: Record<string, ToolCallRecord> = {};
  for (const id of ids) {
    const hits = recordsForId(state, id);
    if (hits.length === 0) {
      blocks.push(formatQueryNotFound(id));
      continue;
    }
    for (const h of hits) {
      blocks.push(formatQueryBlock(h, bodyPage(bodyOf(h.record, storedBody), offset, limits)));
      results[h.label] = h.record;
    }
  }
  return { text: blocks.join(QUERY_BLOCK_SEPARATOR), results };
}
