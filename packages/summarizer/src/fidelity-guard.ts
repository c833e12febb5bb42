/**
 * The fidelity guard: after any summary (LLM or deterministic), check that the key facts of the raw
 * outputs survived, append the missing ones compactly (grouped per call, labelled with its ref), and
 * score the result. Appending stops at a size cap, so a guarded summary is never larger than the raw
 * outputs it replaces; the score then reports what could not be kept.
 */
import type { CapturedToolCall } from "@condense/core";
import { extractFacts, factPresent, FACT_PRIORITY, type Fact } from "./facts.ts";
import type { FidelityReport } from "./types.ts";

export interface FidelityGuardInput {
  /** Summary body (refs already rewritten, no footer). */
  summary: string;
  calls: readonly CapturedToolCall[];
  /** One ref per call, used to label the appended facts. */
  refs?: readonly string[];
  laterText?: string;
  /** Max length of the guarded body. Default: the raw outputs' total length. */
  maxChars?: number;
}

export interface FidelityGuardResult {
  text: string;
  report: FidelityReport;
}

const HEADER = "\n\nKept verbatim from the outputs:";

function renderFact(f: Fact): string {
  switch (f.kind) {
    case "exit":
      return `exit ${f.value}`;
    case "error":
      return `! ${f.value}`;
    case "test":
      return `✗ ${f.value}`;
    default:
      return `\`${f.value.replace(/`/g, "'")}\``;
  }
}

function score(present: number, total: number): number {
  return total === 0 ? 1 : present / total;
}

export function applyFidelityGuard(input: FidelityGuardInput): FidelityGuardResult {
  const raw = input.calls.reduce((n, c) => n + c.resultText.length, 0);
  const maxChars = Math.min(input.maxChars ?? raw, raw);
  const facts = extractFacts(input.calls, input.laterText);
  const missing = facts.filter((f) => !factPresent(f, input.summary));
  const presentBefore = facts.length - missing.length;

  // Most important kinds first, then call order, so a tight cap drops identifiers before errors.
  const rank = (f: Fact) => FACT_PRIORITY.indexOf(f.kind);
  const queue = [...missing].sort((a, b) => rank(a) - rank(b) || a.call - b.call);
  const kept = new Map<number, string[]>();
  let length = input.summary.length + HEADER.length;
  const dropped: Fact[] = [];
  for (const f of queue) {
    const piece = renderFact(f);
    const line = kept.has(f.call)
      ? 0
      : `\n- ${input.refs?.[f.call] ? `\`${input.refs[f.call]}\`` : `call ${f.call + 1}`}:`.length;
    const cost = line + 1 + piece.length + 1;
    if (length + cost > maxChars) {
      dropped.push(f);
      continue;
    }
    length += cost;
    kept.set(f.call, [...(kept.get(f.call) ?? []), piece]);
  }

  let text = input.summary;
  if (kept.size > 0) {
    const lines = [...kept.entries()]
      .sort(([a], [b]) => a - b)
      .map(
        ([call, pieces]) =>
          `- ${input.refs?.[call] ? `\`${input.refs[call]}\`` : `call ${call + 1}`}: ${pieces.join(" ")}`,
      );
    text = `${input.summary}${HEADER}\n${lines.join("\n")}`;
  }
  const appended = missing.length - dropped.length;
  // Re-check rather than assume: a fact counts only if the final text really contains it.
  const presentAfter = facts.filter((f) => factPresent(f, text)).length;
  return {
    text,
    report: {
      facts: facts.length,
      presentBefore,
      presentAfter,
      before: score(presentBefore, facts.length),
      after: score(presentAfter, facts.length),
      appended,
      missing: facts.filter((f) => !factPresent(f, text)).map((f) => `${f.kind}:${f.value}`),
    },
  };
}
