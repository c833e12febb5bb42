/**
 * What the end-to-end suite asserts about the requests the fake LLM received, as plain functions over
 * OpenAI-format bodies: tool pairing, stubs and their refs, summaries, compressed chains, the prompt-cache
 * prefix between two state changes, and the agent's waiting time.
 */
import { textOf, type ChatMessage, type RecordedRequest } from "@condense/test-support/fake-llm";

export const STUB_REF = /^\[Condensed: [^\n]*ref `(t\d+)`/;
export const SUMMARY_MARK = "**Condensed tool refs**";
export const CHAIN_MARK = /<compressed-chain id="(b\d+)"/g;

/** Every assistant tool call answered by exactly one tool message right after it; no stray tool message. */
export function pairingProblems(messages: ChatMessage[]): string[] {
  const problems: string[] = [];
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]!;
    if (m.role === "tool") {
      problems.push(`#${i}: tool message ${m.tool_call_id} without a preceding call`);
      continue;
    }
    if (m.role !== "assistant" || !m.tool_calls?.length) continue;
    const open = new Set(m.tool_calls.map((c) => c.id));
    let j = i + 1;
    for (; j < messages.length && messages[j]!.role === "tool"; j++) {
      const id = messages[j]!.tool_call_id ?? "";
      if (!open.delete(id)) problems.push(`#${j}: tool message ${id} does not answer the call at #${i}`);
    }
    if (open.size > 0) problems.push(`#${i}: calls without results: ${[...open].join(", ")}`);
    i = j - 1;
  }
  return problems;
}

export function stubRefs(messages: ChatMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages) {
    if (m.role !== "tool") continue;
    const hit = STUB_REF.exec(textOf(m.content));
    if (hit) out.push(hit[1]!);
  }
  return out;
}

/** Texts of the user-role messages that carry Condense summaries. */
export function summaryTexts(messages: ChatMessage[]): string[] {
  return messages
    .filter((m) => m.role === "user" && textOf(m.content).includes(SUMMARY_MARK))
    .map((m) => textOf(m.content));
}

export function chainIds(messages: ChatMessage[]): string[] {
  const out: string[] = [];
  for (const m of messages)
    if (m.role === "user") for (const hit of textOf(m.content).matchAll(CHAIN_MARK)) out.push(hit[1]!);
  return out;
}

const PURGED = "condense-purged-error-args";

/** A count that grows whenever Condense changes what the model sees of earlier messages. */
export function condensationLevel(messages: ChatMessage[]): number {
  let purged = 0;
  for (const m of messages) for (const c of m.tool_calls ?? []) if (c.function.arguments.includes(PURGED)) purged++;
  return stubRefs(messages).length + chainIds(messages).length * 1000 + purged;
}

export function isPrefix(prev: ChatMessage[], next: ChatMessage[]): boolean {
  if (next.length < prev.length) return false;
  for (let i = 0; i < prev.length; i++) if (JSON.stringify(prev[i]) !== JSON.stringify(next[i])) return false;
  return true;
}

export interface PrefixReport {
  pairs: number;
  kept: number;
  breaks: { index: number; explained: boolean }[];
}

/**
 * For consecutive agent requests of one process: the previous request's messages must be a byte-identical
 * prefix of the next one's, unless Condense applied new state in between (the condensation level rose).
 */
export function prefixReport(agent: RecordedRequest[]): PrefixReport {
  const report: PrefixReport = { pairs: 0, kept: 0, breaks: [] };
  for (let i = 1; i < agent.length; i++) {
    const prev = agent[i - 1]!.body.messages;
    const next = agent[i]!.body.messages;
    report.pairs++;
    if (isPrefix(prev, next)) {
      report.kept++;
      continue;
    }
    report.breaks.push({ index: i, explained: condensationLevel(next) > condensationLevel(prev) });
  }
  return report;
}
