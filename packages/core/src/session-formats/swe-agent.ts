/**
 * Reader for SWE-agent trajectories (`*.traj`: one JSON document with `history`, `trajectory`, `info`).
 * `history` is the chat the model saw. Function-calling runs store assistant `tool_calls` and `tool`
 * role observations, which map directly. Classic (thought/action) runs store the action as text and
 * the observation as the next user message; those become a synthesized tool call (named after the
 * action's command word, arguments `{command}`) and its result, so condensation sees the tool output
 * for what it is. Without `history`, the steps of `trajectory` (response/action/observation) are used.
 * A truncated file still yields the history elements that are complete.
 */
import { isObject, type AgentMessage, type AssistantBlock, type ImagePart, type TextPart } from "../messages.ts";
import type { SkippedLine } from "../session-reader.ts";
import { argumentsObject } from "./json-lines.ts";
import type { FormatReadResult } from "./types.ts";

export function readSweAgentTrajectory(text: string): FormatReadResult {
  const skipped: SkippedLine[] = [];
  const warnings: string[] = [];
  const src = typeof text === "string" ? text : "";
  let doc: Record<string, unknown> | undefined;
  try {
    const v: unknown = JSON.parse(src);
    if (isObject(v)) doc = v;
    else skipped.push({ line: 0, reason: "trajectory is not a JSON object" });
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    const salvaged = salvageArray(src, "history");
    if (salvaged.items.length > 0) {
      doc = { history: salvaged.items };
      skipped.push({
        line: salvaged.brokenAtLine,
        reason: `truncated or invalid JSON (${why.slice(0, 80)}); ${salvaged.items.length} complete history message(s) kept`,
      });
    } else {
      skipped.push({ line: 0, reason: `invalid JSON (${why.slice(0, 80)})` });
    }
  }
  if (!doc) return { format: "swe-agent", messages: [], skipped, warnings };

  const history = Array.isArray(doc.history) ? doc.history.filter(isObject) : [];
  const messages =
    history.length > 0
      ? fromHistory(history, warnings)
      : fromTrajectory(Array.isArray(doc.trajectory) ? doc.trajectory.filter(isObject) : [], warnings);
  if (history.length === 0 && messages.length === 0)
    skipped.push({ line: 0, reason: "no history or trajectory steps" });
  return { format: "swe-agent", messages, skipped, warnings };
}

function textOf(c: unknown): string {
  if (typeof c === "string") return c;
  if (!Array.isArray(c)) return "";
  return c
    .filter(isObject)
    .map((b) => (typeof b.text === "string" ? b.text : ""))
    .filter((t) => t.length > 0)
    .join("\n");
}

function parts(c: unknown): (TextPart | ImagePart)[] {
  const t = textOf(c);
  return t.length > 0 ? [{ type: "text", text: t }] : [];
}

/** The command word of a classic action ("edit 1:1\n..." -> "edit"). */
function commandName(action: string): string {
  const word = /^\s*([^\s]+)/.exec(action)?.[1] ?? "";
  return word.length > 0 && word.length <= 64 ? word : "action";
}

function fromHistory(history: Record<string, unknown>[], warnings: string[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  const toolNames = new Map<string, string>();
  /** Synthesized call of a classic action, answered by the next user message. */
  let pending: { id: string; name: string } | undefined;
  let system = 0;
  let n = 0;
  for (const m of history) {
    n++;
    const role = m.role;
    if (role === "system") {
      system++;
      continue;
    }
    if (role === "assistant") {
      const blocks: AssistantBlock[] = [];
      const thought = typeof m.thought === "string" && m.thought.length > 0 ? m.thought : textOf(m.content);
      if (thought.length > 0) blocks.push({ type: "text", text: thought });
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.filter(isObject) : [];
      pending = undefined;
      for (const c of calls) {
        const fn = isObject(c.function) ? c.function : {};
        const id = typeof c.id === "string" ? c.id : `swe-call-${n}`;
        const name = typeof fn.name === "string" ? fn.name : "action";
        toolNames.set(id, name);
        blocks.push({ type: "toolCall", id, name, arguments: argumentsObject(fn.arguments) });
      }
      if (calls.length === 0 && typeof m.action === "string" && m.action.trim().length > 0) {
        pending = { id: `swe-action-${n}`, name: commandName(m.action) };
        blocks.push({ type: "toolCall", id: pending.id, name: pending.name, arguments: { command: m.action } });
      }
      const hasCall = blocks.some((b) => b.type === "toolCall");
      out.push({ role: "assistant", content: blocks, stopReason: hasCall ? "toolUse" : "stop" });
      continue;
    }
    if (role === "tool") {
      const ids = Array.isArray(m.tool_call_ids)
        ? m.tool_call_ids.filter((x): x is string => typeof x === "string")
        : [];
      const id = ids[0] ?? (typeof m.tool_call_id === "string" ? m.tool_call_id : "");
      if (!id) {
        warnings.push(`history message ${n}: tool observation without a call id was left out`);
        continue;
      }
      out.push({
        role: "toolResult",
        toolCallId: id,
        toolName: toolNames.get(id) ?? "unknown",
        content: parts(m.content),
        isError: false,
      });
      continue;
    }
    if (role === "user" && pending) {
      out.push({
        role: "toolResult",
        toolCallId: pending.id,
        toolName: pending.name,
        content: parts(m.content),
        isError: false,
      });
      pending = undefined;
      continue;
    }
    if (role === "user") {
      out.push({ role: "user", content: parts(m.content) });
      continue;
    }
    warnings.push(`history message ${n}: unsupported role ${String(role)} left out`);
  }
  if (system > 0) warnings.push(`${system} system prompt message(s) are not part of the replayed conversation`);
  return out;
}

function fromTrajectory(steps: Record<string, unknown>[], warnings: string[]): AgentMessage[] {
  const out: AgentMessage[] = [];
  let n = 0;
  for (const s of steps) {
    n++;
    const thought = typeof s.thought === "string" && s.thought.length > 0 ? s.thought : textOf(s.response);
    const action = typeof s.action === "string" ? s.action : "";
    const blocks: AssistantBlock[] = thought ? [{ type: "text", text: thought }] : [];
    if (action.trim().length === 0) {
      out.push({ role: "assistant", content: blocks, stopReason: "stop" });
      continue;
    }
    const id = `swe-step-${n}`;
    const name = commandName(action);
    blocks.push({ type: "toolCall", id, name, arguments: { command: action } });
    out.push({ role: "assistant", content: blocks, stopReason: "toolUse" });
    out.push({ role: "toolResult", toolCallId: id, toolName: name, content: parts(s.observation), isError: false });
  }
  if (steps.length > 0)
    warnings.push("no `history` in the trajectory: the conversation was rebuilt from its steps (no user prompt)");
  return out;
}

/**
 * The complete elements of the array under `"key"` in a JSON text that does not parse (cut off or
 * damaged), by balanced-bracket scanning; stops at the first element that does not parse.
 */
function salvageArray(text: string, key: string): { items: Record<string, unknown>[]; brokenAtLine: number } {
  const items: Record<string, unknown>[] = [];
  const at = new RegExp(`"${key}"\\s*:\\s*\\[`).exec(text);
  if (!at) return { items, brokenAtLine: 0 };
  let i = at.index + at[0].length;
  const lineAt = (pos: number) => {
    let l = 1;
    for (let k = 0; k < pos; k++) if (text.charCodeAt(k) === 10) l++;
    return l;
  };
  while (i < text.length) {
    while (i < text.length && /[\s,]/.test(text[i]!)) i++;
    if (i >= text.length || text[i] !== "{") break;
    const end = objectEnd(text, i);
    if (end === -1) return { items, brokenAtLine: lineAt(i) };
    try {
      const v: unknown = JSON.parse(text.slice(i, end + 1));
      if (isObject(v)) items.push(v);
    } catch {
      return { items, brokenAtLine: lineAt(i) };
    }
    i = end + 1;
  }
  return { items, brokenAtLine: lineAt(Math.min(i, text.length)) };
}

/** Index of the `}` closing the object that opens at `start`, or -1 when the text ends first. */
function objectEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++;
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 34) inString = true;
    else if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      depth--;
      if (depth === 0) return i;
    }
  }
  return -1;
}
