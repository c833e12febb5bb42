/**
 * Phase 1, stub-replace (CAP-RENDER-3..6, CAP-PROT-3, CAP-QUERY-5). Every summarized tool result is
 * replaced in place by a stub naming its short ref: role alternation is kept (no orphaned call), the
 * stub says `isError:false`, and it is byte-identical on every render because it is built once per
 * occurrence per state version and then reused as the same object.
 */
import { occKey } from "../keys.ts";
import { isObject, type ToolResultMessage } from "../messages.ts";
import { isProtectedCall, type ProtectionRules } from "../protection.ts";
import { recordFor, hasLegacyBareRecord, isSummarized, type CondenseState } from "../state.ts";
import type { ToolCallRecord } from "../state-types.ts";
import { QUERY_TOOL_NAME, storedStubText, summaryStubText } from "../texts.ts";
import { isChainSynthetic, isReadableToolResult } from "./message-shape.ts";
import type { RenderContext } from "./render-context.ts";

interface StubDecision {
  /** The message's own occurrence key (what grace is keyed by). */
  key: string;
  record: ToolCallRecord;
  stub: ToolResultMessage;
}
const KEEP = null;
type Decision = StubDecision | typeof KEEP;

interface StateStubCache {
  /** per message object: the lookup outcome (messages are immutable, so it never changes). */
  decisions: WeakMap<object, Decision>;
  /** per occurrence (`key` + tool name): the stub, so equal occurrences share one object. */
  stubs: Map<string, ToolResultMessage>;
}
const cacheByState = new WeakMap<CondenseState, StateStubCache>();
const protectedByRules = new WeakMap<ProtectionRules, WeakMap<ToolCallRecord, boolean>>();

function stateCache(state: CondenseState): StateStubCache {
  let c = cacheByState.get(state);
  if (!c) { c = { decisions: new WeakMap(), stubs: new Map() }; cacheByState.set(state, c); }
  return c;
}

/** CAP-PROT-3: a record that is protected under the current rules stays verbatim. */
function isProtectedRecord(rules: ProtectionRules, record: ToolCallRecord): boolean {
  let byRecord = protectedByRules.get(rules);
  if (!byRecord) { byRecord = new WeakMap(); protectedByRules.set(rules, byRecord); }
  let p = byRecord.get(record);
  if (p === undefined) { p = isProtectedCall(rules, record.toolName, record.args); byRecord.set(record, p); }
  return p;
}

/** CAP-RENDER-3 lookup ladder: exact occurrence key, else an unambiguous legacy bare-id record. */
function decide(state: CondenseState, cache: StateStubCache, m: ToolResultMessage): Decision {
  const cached = cache.decisions.get(m);
  if (cached !== undefined) return cached;
  const ts = typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? m.timestamp : undefined;
  const key = occKey(m.toolCallId, ts);
  const lookupKey = isSummarized(state, key) ? key : hasLegacyBareRecord(state, m.toolCallId) ? m.toolCallId : undefined;
  // A key whose record is gone (an alias of a missing original) is not recoverable: keep the raw output.
  const record = lookupKey === undefined ? undefined : recordFor(state, lookupKey);
  let d: Decision = KEEP;
  if (record && lookupKey !== undefined) {
    const toolName = typeof m.toolName === "string" ? m.toolName : record.toolName;
    const ref = state.keyToRef.get(lookupKey) ?? m.toolCallId;
    const stubKey = `${key}\u0000${toolName}\u0000${ref}`;
    let stub = cache.stubs.get(stubKey);
    if (!stub) {
      const text = record.stored
        ? storedStubText({ toolName, bytes: record.stored.bytes, preview: record.stored.preview, ref })
        : summaryStubText(ref);
      stub = { role: "toolResult", toolCallId: m.toolCallId, toolName, content: [{ type: "text", text }], isError: false };
      if (ts !== undefined) stub.timestamp = ts;
      cache.stubs.set(stubKey, stub);
    }
    d = { key, record, stub };
  }
  cache.decisions.set(m, d);
  return d;
}

export function stubReplace(messages: readonly unknown[], ctx: RenderContext): readonly unknown[] {
  const { state, rules } = ctx;
  if (state.records.size === 0) return messages; // nothing indexed: nothing to stub (aliases need records too)
  const cache = stateCache(state);
  const k = ctx.settings.recoveryGraceTurns;
  const graceOn = typeof k === "number" && k > 0;
  let users = 0;
  let hits: { index: number; d: StubDecision }[] | undefined;
  let queries: { key: string; seen: number }[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!isObject(m)) continue;
    if (m.role === "user") { if (graceOn && !isChainSynthetic(m)) users++; continue; }
    if (!isReadableToolResult(m)) continue;
    const d = decide(state, cache, m);
    if (graceOn && m.toolName === QUERY_TOOL_NAME) {
      const ts = typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? m.timestamp : undefined;
      (queries ??= []).push({ key: d?.key ?? occKey(m.toolCallId, ts), seen: users });
    }
    if (d === KEEP || d.stub === m || isProtectedRecord(rules, d.record)) continue;
    (hits ??= []).push({ index: i, d });
  }
  if (!hits) return messages;
  // CAP-QUERY-5, same rule as graceSet(): decided after the scan, once the user-turn count is known.
  let grace: Set<string> | undefined;
  if (queries) for (const q of queries) if (users - q.seen <= k) (grace ??= new Set()).add(q.key);
  let out: unknown[] | undefined;
  for (const h of hits) {
    if (grace?.has(h.d.key)) continue;
    out ??= messages.slice();
    out[h.index] = h.d.stub;
    ctx.stats.stubbed++;
  }
  return out ?? messages;
}
