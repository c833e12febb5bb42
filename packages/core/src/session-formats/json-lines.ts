/**
 * Tolerant JSONL splitting shared by the JSONL readers (Claude Code, Codex CLI): one object per
 * physical line normally, several when a writer lost a newline, none when a line is cut or broken.
 * Never throws; every dropped line is reported with its 1-based number.
 */
import { isObject } from "../messages.ts";
import { splitObjects, type SkippedLine } from "../session-reader.ts";

export interface JsonLine { line: number; value: Record<string, unknown> }

export function parseJsonLines(text: string, skipped: SkippedLine[]): JsonLine[] {
  const out: JsonLine[] = [];
  const src = typeof text === "string" ? text : "";
  let lineNo = 0;
  let pos = 0;
  while (pos <= src.length) {
    let nl = src.indexOf("\n", pos);
    if (nl === -1) nl = src.length;
    lineNo++;
    const line = src.slice(pos, nl).trim();
    pos = nl + 1;
    if (line.length === 0) continue;
    let whole: unknown;
    try { whole = JSON.parse(line); } catch { whole = undefined; }
    if (whole !== undefined) {
      if (isObject(whole)) out.push({ line: lineNo, value: whole });
      else skipped.push({ line: lineNo, reason: "not a JSON object" });
      continue;
    }
    const chunks = splitObjects(line);
    if (chunks.length === 0) { skipped.push({ line: lineNo, reason: "no JSON object on line" }); continue; }
    for (const chunk of chunks) {
      if (chunk.junk) { skipped.push({ line: lineNo, reason: "text outside a JSON object" }); continue; }
      try {
        const v: unknown = JSON.parse(chunk.text);
        if (isObject(v)) out.push({ line: lineNo, value: v });
        else skipped.push({ line: lineNo, reason: "not a JSON object" });
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        skipped.push({ line: lineNo, reason: `invalid JSON (${why.slice(0, 80)})` });
      }
    }
  }
  return out;
}

/** Epoch ms of an ISO string or a number; undefined when neither. */
export function timestampMs(ts: unknown): number | undefined {
  if (typeof ts === "number" && Number.isFinite(ts)) return ts;
  if (typeof ts !== "string") return undefined;
  const ms = Date.parse(ts);
  return Number.isFinite(ms) ? ms : undefined;
}

/** A tool-call arguments value as an object: JSON text is parsed, anything else is wrapped. */
export function argumentsObject(raw: unknown): Record<string, unknown> {
  if (isObject(raw)) return raw;
  if (typeof raw === "string") {
    try {
      const v: unknown = JSON.parse(raw);
      if (isObject(v)) return v;
    } catch { /* not JSON: keep the text */ }
    return raw.length > 0 ? { input: raw } : {};
  }
  return raw === undefined || raw === null ? {} : { input: raw };
}
