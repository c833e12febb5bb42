/**
 * Phase 1, stub-replace (CAP-RENDER-3..6, CAP-PROT-3, CAP-QUERY-5). Every summarized tool result is
 * replaced in place by a stub naming its short ref. Role alternation is kept (no orphaned call), the
 * stub says `isError:false`, and it is byte-identical on every render: its text is a function of the
 * record and the ref alone. Exempt: results whose record is protected under the current settings,
 * and recovered outputs still in grace (decided with the render policy, see render-policy.ts).
 */
import { occKey } from "../keys.ts";
import { isObject, type ToolResultMessage } from "../messages.ts";
import { isProtectedCall } from "../protection.ts";
import { hasLegacyBareRecord, isSummarized, recordFor } from "../state.ts";
import { storedStubText, summaryStubText } from "../texts.ts";
import { Kind, type Rendering } from "./message-shape.ts";
import { writable, type RenderContext } from "./render-context.ts";
import { producedSize } from "./message-size.ts";
import type { StubPlan } from "./render-memo.ts";
import { resultKey } from "./render-policy.ts";

export function stubReplace(r: Rendering, ctx: RenderContext): Rendering {
  // Nothing indexed, nothing to stub (aliases need records too).
  if (ctx.state.records.size === 0) return r;
  const { messages, kinds, timestamps } = r;
  const planned = ctx.memo.plannedAt;
  while (planned.length < messages.length) planned.push(undefined);
  let out: unknown[] | undefined;
  for (let i = 0; i < messages.length; i++) {
    if (kinds[i] !== Kind.RESULT) continue;
    const m = messages[i] as ToolResultMessage;
    const plan = plannedAt(ctx, m, i, timestamps[i]!);
    if (!plan || isProtected(ctx, plan)) continue;
    if (ctx.policy.graceKeys.size > 0 && ctx.policy.graceKeys.has(resultKey(m))) continue;
    // A host that hands back rendered output already holds the stub.
    if (m === plan.stub || isSameStub(m, plan.stub)) continue;
    (out ??= writable(ctx, messages))[i] = plan.stub;
    ctx.stats.stubbed++;
  }
  // A stub replaces a tool result in place: the kinds and timestamps still hold.
  return out ? { ...r, messages: out } : r;
}

/** The plan for the result at position `i`: the one planned there last when it is the same occurrence. */
function plannedAt(ctx: RenderContext, m: ToolResultMessage, i: number, ts: number): StubPlan | null {
  const p = ctx.memo.plannedAt[i];
  if (
    p &&
    p.id === m.toolCallId &&
    p.toolName === m.toolName &&
    (p.ts === ts || (Number.isNaN(p.ts) && Number.isNaN(ts)))
  )
    return p.plan;
  const plan = stubPlan(ctx, m);
  ctx.memo.plannedAt[i] = { id: m.toolCallId, ts, toolName: m.toolName, plan };
  return plan;
}

/** The occurrence's stub plan from the memo, built on first sight. */
function stubPlan(ctx: RenderContext, m: ToolResultMessage): StubPlan | null {
  const { stubs, bareStubs } = ctx.memo;
  const ts = m.timestamp;
  let plan: StubPlan | null | undefined;
  if (typeof ts === "number" && Number.isFinite(ts)) {
    let occurrences = stubs.get(m.toolCallId);
    if (!occurrences) {
      occurrences = [];
      stubs.set(m.toolCallId, occurrences);
    }
    for (const o of occurrences)
      if (o.ts === ts) {
        plan = o.plan;
        break;
      }
    if (plan === undefined) {
      plan = lookup(ctx, m);
      occurrences.push({ ts, plan });
    }
  } else {
    plan = bareStubs.get(m.toolCallId);
    if (plan === undefined) {
      plan = lookup(ctx, m);
      bareStubs.set(m.toolCallId, plan);
    }
  }
  // The stub carries the message's own tool name; a result naming another tool gets its own stub.
  if (plan && typeof m.toolName === "string" && m.toolName !== plan.stub.toolName) return lookup(ctx, m);
  return plan;
}

/** CAP-RENDER-3 lookup ladder: exact occurrence key, else an unambiguous legacy bare-id record. */
function lookup(ctx: RenderContext, m: ToolResultMessage): StubPlan | null {
  const { state } = ctx;
  const ts = typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? m.timestamp : undefined;
  const key = occKey(m.toolCallId, ts);
  const lookupKey = isSummarized(state, key)
    ? key
    : hasLegacyBareRecord(state, m.toolCallId)
      ? m.toolCallId
      : undefined;
  // A key whose record is gone (an alias of a missing original) is not recoverable: keep the raw output.
  const record = lookupKey === undefined ? undefined : recordFor(state, lookupKey);
  if (!record || lookupKey === undefined) return null;
  const toolName = typeof m.toolName === "string" ? m.toolName : record.toolName;
  const ref = state.keyToRef.get(lookupKey) ?? m.toolCallId;
  const text = record.stored
    ? storedStubText({ toolName, bytes: record.stored.bytes, preview: record.stored.preview, ref })
    : summaryStubText(ref);
  const stub: ToolResultMessage = {
    role: "toolResult",
    toolCallId: m.toolCallId,
    toolName,
    content: [{ type: "text", text }],
    isError: false,
  };
  if (ts !== undefined) stub.timestamp = ts;
  producedSize(ctx.memo.sizes, stub);
  return { record, stub };
}

/** CAP-PROT-3: a record protected under the current rules stays verbatim. */
function isProtected(ctx: RenderContext, plan: StubPlan): boolean {
  const verdicts = ctx.memo.protectedRecords;
  let p = verdicts.get(plan.record);
  if (p === undefined) {
    p = isProtectedCall(ctx.rules, plan.record.toolName, plan.record.args);
    verdicts.set(plan.record, p);
  }
  return p;
}

/** A copy of the stub (rendered output cloned by the host) is already stubbed. */
function isSameStub(m: ToolResultMessage, stub: ToolResultMessage): boolean {
  if (m.isError !== false || m.timestamp !== stub.timestamp || m.details !== undefined || m.toolName !== stub.toolName)
    return false;
  const p = m.content.length === 1 ? m.content[0] : undefined;
  return isObject(p) && p.type === "text" && p.text === (stub.content[0] as { text: string }).text;
}
