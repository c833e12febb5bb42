/**
 * Tolerant JSON Lines splitting shared by every JSONL session reader (pi, Claude Code, Codex CLI):
 * one object per physical line normally, several when a writer lost a newline, none when a line is
 * cut or broken. Never throws; every dropped line is reported with its 1-based number.
 */
import { isObject } from "./messages.ts";

export interface SkippedLine {
  line: number;
  reason: string;
}
export interface JsonLine {
  line: number;
  value: Record<string, unknown>;
}

export interface Chunk {
  text: string;
  junk: boolean;
}

/**
 * Split a physical line into top-level `{...}` objects by balanced-brace scanning. Braces inside
 * strings (and escaped quotes) do not count. An unbalanced tail is returned as one chunk so its parse
 * error is reported rather than lost.
 */
export function splitObjects(line: string): Chunk[] {
  const out: Chunk[] = [];
  let depth = 0;
  let start = -1;
  let inString = false;
  let junkStart = -1;
  for (let i = 0; i < line.length; i++) {
    const c = line.charCodeAt(i);
    if (inString) {
      if (c === 92 /* \ */) i++;
      else if (c === 34 /* " */) inString = false;
      continue;
    }
    if (depth === 0) {
      if (c === 123 /* { */) {
        if (junkStart !== -1) {
          out.push({ text: line.slice(junkStart, i), junk: true });
          junkStart = -1;
        }
        start = i;
        depth = 1;
      } else if (c !== 32 && c !== 9 && c !== 13 && junkStart === -1) junkStart = i;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123) depth++;
    else if (c === 125 /* } */) {
      depth--;
      if (depth === 0) {
        out.push({ text: line.slice(start, i + 1), junk: false });
        start = -1;
      }
    }
  }
  if (depth > 0 && start !== -1) out.push({ text: line.slice(start), junk: false });
  if (junkStart !== -1) out.push({ text: line.slice(junkStart), junk: true });
  return out;
}

/**
 * Parse every object of a JSONL text. `onInvalid` sees the text of an object that failed to parse
 * and may return a note appended to its skip reason (the pi reader salvages tree links this way).
 */
export function parseJsonLines(
  text: string,
  skipped: SkippedLine[],
  onInvalid?: (chunk: string) => string | undefined,
): JsonLine[] {
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
    // Fast path: the common, well-formed line.
    let whole: unknown;
    try {
      whole = JSON.parse(line);
    } catch {
      whole = undefined;
    }
    if (whole !== undefined) {
      if (isObject(whole)) out.push({ line: lineNo, value: whole });
      else skipped.push({ line: lineNo, reason: "not a JSON object" });
      continue;
    }
    const chunks = splitObjects(line);
    if (chunks.length === 0) {
      skipped.push({ line: lineNo, reason: "no JSON object on line" });
      continue;
    }
    for (const chunk of chunks) {
      if (chunk.junk) {
        skipped.push({ line: lineNo, reason: "text outside a JSON object" });
        continue;
      }
      try {
        const v: unknown = JSON.parse(chunk.text);
        if (isObject(v)) out.push({ line: lineNo, value: v });
        else skipped.push({ line: lineNo, reason: "not a JSON object" });
      } catch (err) {
        const note = onInvalid?.(chunk.text);
        const why = err instanceof Error ? err.message : String(err);
        skipped.push({ line: lineNo, reason: `invalid JSON (${why.slice(0, 80)})${note ? `; ${note}` : ""}` });
      }
    }
  }
  return out;
}
