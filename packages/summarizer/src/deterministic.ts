/**
 * The extractive, zero-cost summary of a batch: the embedded default when no model is configured and
 * the last resort when no model answers. One bullet per call: its ref, tool and key arguments, its
 * outcome and size, then the most informative lines (errors, failing tests, counts, paths, URLs, first
 * and last meaningful lines) within a per-call size budget. Pure and deterministic: same batch, same text.
 */
import type { CapturedBatch, CapturedToolCall } from "@condense/core";
import { callFacts, cutLine } from "./facts.ts";

const KEY_ARGS = [
  "path",
  "file_path",
  "filePath",
  "file",
  "paths",
  "command",
  "cmd",
  "pattern",
  "regex",
  "query",
  "url",
  "action",
  "glob",
  "name",
  "id",
];
const COUNT_LINE =
  /\b\d[\d,.]*\s+(?:tests?|passed|failed|failing|passing|errors?|warnings?|files?|matches|results?|packages?|lines|skipped|todo|insertions?|deletions?|changed)\b/i;
const MEANINGFUL = /[A-Za-z0-9]{2}/;
const MIN_CALL_BUDGET = 240;
const MAX_CALL_BUDGET = 1600;

export interface DeterministicOptions {
  /** Share of a call's raw size its bullet may use (floored at MIN_CALL_BUDGET chars). */
  maxShare?: number;
}

function renderArg(v: unknown): string | undefined {
  if (typeof v === "string") {
    const first = v.trim().split("\n")[0] ?? "";
    return first ? cutLine(first, 120) : undefined;
  }
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  if (Array.isArray(v) && v.every((x) => typeof x === "string")) return cutLine(v.join(", "), 120);
  return undefined;
}

export function keyArgs(args: Record<string, unknown>): string {
  const parts: string[] = [];
  for (const k of KEY_ARGS) {
    if (parts.length >= 3) break;
    const r = renderArg(args[k]);
    if (r) parts.push(k === "command" || k === "cmd" ? `\`${r.replace(/`/g, "'")}\`` : `${k}=${r}`);
  }
  return parts.join(" ");
}

function sizeOf(text: string): string {
  const lines = text === "" ? 0 : text.split("\n").length;
  return `${text.length} chars, ${lines} line${lines === 1 ? "" : "s"}`;
}

function meaningfulLines(text: string): string[] {
  return text.split("\n").filter((l) => MEANINGFUL.test(l) && !/^\s*(?:```|---|===)/.test(l));
}

export function deterministicCallBullet(
  call: CapturedToolCall,
  ref: string | undefined,
  options: DeterministicOptions = {},
): string {
  const share = options.maxShare ?? 0.25;
  // Small outputs get a small floor, so a bullet never dwarfs the output it stands for.
  const floor = Math.min(MIN_CALL_BUDGET, Math.floor(call.resultText.length * 0.6));
  const budget = Math.min(MAX_CALL_BUDGET, Math.max(floor, Math.floor(call.resultText.length * share)));
  const facts = callFacts(call);
  const outcome = [call.isError ? "error" : "ok", facts.exitCode !== undefined ? `exit ${facts.exitCode}` : ""]
    .filter(Boolean)
    .join(", ");
  const args = keyArgs(call.args);
  const head = `- ${ref ? `\`${ref}\` ` : ""}${call.toolName}${args ? ` ${args}` : ""} → ${outcome} · ${sizeOf(call.resultText)}`;

  const lines = meaningfulLines(call.resultText);
  const candidates: string[] = [
    ...facts.errors.map((e) => `  ! ${e}`),
    ...facts.failingTests.map((t) => `  ✗ ${t}`),
    ...lines
      .filter((l) => COUNT_LINE.test(l))
      .slice(0, 2)
      .map((l) => `  # ${cutLine(l)}`),
  ];
  if (facts.paths.length) candidates.push(`  paths: ${facts.paths.join(", ")}`);
  if (facts.urls.length) candidates.push(`  urls: ${facts.urls.join(" ")}`);
  const first = lines[0];
  const last = lines[lines.length - 1];
  if (first) candidates.push(`  first: ${cutLine(first)}`);
  if (last && last !== first) candidates.push(`  last: ${cutLine(last)}`);

  const out = [head];
  let used = head.length;
  const seen = new Set<string>();
  for (const c of candidates) {
    if (seen.has(c)) continue;
    if (used + 1 + c.length > budget) continue; // a later, shorter line may still fit
    out.push(c);
    seen.add(c);
    used += 1 + c.length;
  }
  return out.join("\n");
}

/** The batch body (no ref footer): one bullet per call, labelled with the call's ref. */
export function deterministicBatchBody(
  batch: Pick<CapturedBatch, "toolCalls">,
  refs: readonly string[],
  options: DeterministicOptions = {},
): string {
  return batch.toolCalls.map((call, i) => deterministicCallBullet(call, refs[i], options)).join("\n");
}

/** Chain fusion without a model: the distinct bodies, footers removed, in order. */
export function deterministicFusion(summaries: readonly string[]): string {
  const bodies = summaries.map((s) => s.replace(/\n\n---\n\*\*[^\n]*\n[^\n]*$/, "").trim()).filter(Boolean);
  return [...new Set(bodies)].join("\n\n");
}
