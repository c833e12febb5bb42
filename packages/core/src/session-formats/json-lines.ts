/**
 * Field readers shared by the Claude Code and Codex CLI readers (timestamps, tool arguments); the
 * tolerant line splitting itself lives in ../json-lines.ts.
 */
import { isObject } from "../messages.ts";
export { parseJsonLines, type JsonLine } from "../json-lines.ts";

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
    } catch {
      /* not JSON: keep the text */
    }
    return raw.length > 0 ? { input: raw } : {};
  }
  return raw === undefined || raw === null ? {} : { input: raw };
}
