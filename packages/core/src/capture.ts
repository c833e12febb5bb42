/**
 * Batch capture (CAP-CAPTURE): the live path (one finished turn) and the rescan path (the whole branch),
 * the coverage trim, protection, and `agent-message` grouping. Pure: the clock reading for the live
 * path arrives as `now`, the state and settings as arguments.
 *
 * The trim departs from pi-condense's frontier (CAP-CAPTURE-8), which dropped every batch whose turn
 * index fell below the last attempted one. One Condense state serves every branch of a pi session tree,
 * and turn indices are positions on one branch (and in a compacted projection): after `/tree` back to an
 * earlier turn, or a restart after a compaction, new calls sit at lower indices than the stored frontier
 * and were silently never captured. Coverage asks the only question that matters, per occurrence key:
 * does the service already have this call (a record, an alias, or a deliberate skip)?
 */
import type { CapturedBatch, CapturedToolCall } from "./capture-types.ts";
import { occKey } from "./keys.ts";
import {
  isAssistant,
  isObject,
  isToolResult,
  isUser,
  numericTimestamp,
  resultText,
  toolCallArgs,
  toolCallsOf,
  type AgentMessage,
  type AssistantMessage,
  type ToolCallBlock,
  type ToolResultMessage,
} from "./messages.ts";
import { isProtectedCall, protectionRules } from "./protection.ts";
import type { CondenseSettings } from "./settings.ts";
import { isCovered, type CondenseState } from "./state.ts";

type CaptureSettings = Pick<CondenseSettings, "protectedTools" | "protectedPaths" | "batchingMode">;

export const NO_RESULT_TEXT = "(no result)";

export interface TurnCaptureInput {
  /** The assistant message that ended the turn. */
  message: AgentMessage;
  toolResults: readonly AgentMessage[];
  turnIndex: number;
  /** Wall clock at turn end, supplied by the caller (batch timestamp, CAP-CAPTURE-4). */
  now: number;
}

/** The assistant's text blocks joined with "\n", trimmed (CAP-CAPTURE-3). */
export function assistantTextOf(m: AssistantMessage): string {
  const parts: string[] = [];
  for (const b of m.content) if (isObject(b) && b.type === "text" && typeof b.text === "string") parts.push(b.text);
  return parts.join("\n").trim();
}

function capturedCall(block: ToolCallBlock, result: ToolResultMessage | undefined): CapturedToolCall {
  const call: CapturedToolCall = {
    toolCallId: block.id,
    toolName: typeof block.name === "string" ? block.name : "",
    args: toolCallArgs(block),
    resultText: result ? resultText(result) : NO_RESULT_TEXT,
    isError: result?.isError === true,
  };
  const ts = result ? numericTimestamp(result) : undefined;
  if (ts !== undefined) call.resultTimestamp = ts;
  return call;
}

export function callKey(call: Pick<CapturedToolCall, "toolCallId" | "resultTimestamp">): string {
  return occKey(call.toolCallId, call.resultTimestamp);
}

/**
 * Live capture at turn end (CAP-CAPTURE-5): pair each toolCall with the first result of the same id,
 * drop protected calls, trim against the session's coverage. Returns null when nothing is left.
 * Oversized outputs are not handled here: they travel inline and the service stores them out of line.
 */
export function captureTurn(
  input: TurnCaptureInput,
  state: CondenseState,
  settings: CaptureSettings,
): CapturedBatch | null {
  const { message } = input;
  if (!isAssistant(message)) return null;
  const byId = new Map<string, ToolResultMessage>();
  for (const r of input.toolResults ?? []) if (isToolResult(r) && !byId.has(r.toolCallId)) byId.set(r.toolCallId, r);
  const rules = protectionRules(settings);
  const calls: CapturedToolCall[] = [];
  for (const block of toolCallsOf(message)) {
    if (block.id.length === 0) continue;
    const call = capturedCall(block, byId.get(block.id));
    if (isProtectedCall(rules, call.toolName, call.args)) continue;
    calls.push(call);
  }
  if (calls.length === 0) return null;
  const batch: CapturedBatch = {
    turnIndex: input.turnIndex,
    timestamp: input.now,
    assistantText: assistantTextOf(message),
    toolCalls: calls,
  };
  return trimBatch(batch, state);
}

export interface RescanOptions {
  /** Batch timestamp for an assistant message without a numeric timestamp (CAP-CAPTURE-4 "else now"). */
  now?: number;
}

/**
 * Rescan (CAP-CAPTURE-6): every completed, unsummarized, unprotected call of the branch, one batch per
 * assistant. A result only pairs inside its own turn window (up to the next assistant); calls whose
 * result has not arrived are left out, so a flush can take the finished part of a running turn.
 * Linear in the number of messages.
 */
export function rescanBranch(
  messages: readonly AgentMessage[],
  state: CondenseState,
  settings: CaptureSettings,
  options: RescanOptions = {},
): CapturedBatch[] {
  const rules = protectionRules(settings);
  const out: CapturedBatch[] = [];
  const list = Array.isArray(messages) ? messages : [];
  let userTurnGroup = 0;
  let turnCounter = -1;
  for (let i = 0; i < list.length; i++) {
    const m = list[i];
    if (isUser(m)) {
      userTurnGroup++;
      continue;
    }
    if (!isAssistant(m)) continue;
    turnCounter++;
    const blocks = toolCallsOf(m);
    if (blocks.length === 0) continue;
    // The turn window: results after this assistant up to the next one; first result per id wins.
    const results = new Map<string, ToolResultMessage>();
    for (let j = i + 1; j < list.length; j++) {
      const n = list[j];
      if (isAssistant(n)) break;
      if (isToolResult(n) && !results.has(n.toolCallId)) results.set(n.toolCallId, n);
    }
    const calls: CapturedToolCall[] = [];
    for (const block of blocks) {
      if (block.id.length === 0) continue;
      const result = results.get(block.id);
      if (!result) continue;
      const call = capturedCall(block, result);
      if (isCovered(state, callKey(call))) continue;
      if (isProtectedCall(rules, call.toolName, call.args)) continue;
      calls.push(call);
    }
    if (calls.length === 0) continue;
    out.push({
      turnIndex: turnCounter,
      timestamp: numericTimestamp(m) ?? options.now ?? 0,
      assistantText: assistantTextOf(m),
      toolCalls: calls,
      userTurnGroup,
    });
  }
  return out;
}

/**
 * Coverage trim of one raw batch (replaces CAP-CAPTURE-8's frontier, see the top of this file): calls
 * the service already has are dropped; null when nothing is left. The turn index is never consulted.
 */
export function trimBatch(batch: CapturedBatch, state: CondenseState): CapturedBatch | null {
  const calls = batch.toolCalls.filter((c) => !isCovered(state, callKey(c)));
  if (calls.length === 0) return null;
  return calls.length === batch.toolCalls.length ? batch : { ...batch, toolCalls: calls };
}

export function trimBatches(batches: readonly CapturedBatch[], state: CondenseState): CapturedBatch[] {
  const out: CapturedBatch[] = [];
  for (const b of batches) {
    const t = trimBatch(b, state);
    if (t) out.push(t);
  }
  return out;
}

/**
 * Grouping (CAP-CAPTURE-7). `agent-message` merges consecutive batches of one user-turn-group; a batch
 * without a group (live path) is never merged and breaks a running merge. Anything else is `turn`.
 */
export function groupBatches(batches: readonly CapturedBatch[], mode: string): CapturedBatch[] {
  if (mode !== "agent-message") return batches.slice();
  const out: CapturedBatch[] = [];
  let run: CapturedBatch[] = [];
  const flush = () => {
    if (run.length === 1) out.push(run[0]!);
    else if (run.length > 1) {
      const last = run[run.length - 1]!;
      out.push({
        turnIndex: last.turnIndex,
        timestamp: last.timestamp,
        assistantText: run
          .map((b) => b.assistantText)
          .filter((t) => t.length > 0)
          .join("\n\n"),
        toolCalls: run.flatMap((b) => b.toolCalls),
        userTurnGroup: last.userTurnGroup,
      });
    }
    run = [];
  };
  for (const b of batches) {
    if (b.userTurnGroup === undefined) {
      flush();
      out.push(b);
      continue;
    }
    if (run.length > 0 && run[0]!.userTurnGroup !== b.userTurnGroup) flush();
    run.push(b);
  }
  flush();
  return out;
}

/** CAP-CAPTURE-9: rescan -> trim -> group; the authoritative work set of a flush. */
export function capturePendingBatches(
  messages: readonly AgentMessage[],
  state: CondenseState,
  settings: CaptureSettings,
  options: RescanOptions = {},
): CapturedBatch[] {
  return groupBatches(trimBatches(rescanBranch(messages, state, settings, options), state), settings.batchingMode);
}
