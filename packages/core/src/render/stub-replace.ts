/**
 * Phase 1, stub-replace (CAP-RENDER-3..6, CAP-PROT-3, CAP-QUERY-5). Every summarized tool result is
 * replaced in place by a stub naming its short ref: role alternation is kept (no orphaned call), the
 * stub says `isError:false`, and it is byte-identical on every render because it is built once per
 * occurrence per state version and then reused as the same object.
 *
 * Its scan is also the render's only full pass over the input: it reports unreadable messages
 * (malformed-scan.ts), takes the input sizes, counts assistant turns and notes failed results with the
 * turn that opened them for error purge, and finds the chain boundaries and per-batch summaries for
 * chain-range prune. On a fresh clone of thousands of messages every message head is read once per
 * render here instead of once per phase; the later phases read only the messages they act on.
 */
import { occKey } from "../keys.ts";
import { isObject, isSummaryMessage, type ToolResultMessage } from "../messages.ts";
import { isProtectedCall, type ProtectionRules } from "../protection.ts";
import { recordFor, hasLegacyBareRecord, isSummarized, type CondenseState } from "../state.ts";
import type { ToolCallRecord } from "../state-types.ts";
import { QUERY_TOOL_NAME, storedStubText, summaryStubText } from "../texts.ts";
import { beginChainScan, tsSeek, K_ASSISTANT, K_RESULT, K_SKIP, K_SUMMARY, K_USER, noteBoundary, noteCalls, noteEnd, noteStart } from "./chain-range-prune.ts";
import { reportMalformedOne } from "./malformed-scan.ts";
import { beginInputSizes, sizeInputAt } from "./message-size.ts";
import { isChainSynthetic } from "./message-shape.ts";
import { markProduced } from "./message-size.ts";
import type { RenderContext } from "./render-context.ts";

interface StubDecision {
  /** The message's own occurrence key (what grace is keyed by). */
  key: string;
  record: ToolCallRecord;
  /** The protection rules `protectedRecord` was last computed for, and its value under them. */
  rulesSeen?: ProtectionRules;
  protectedRecord?: boolean;
  stub: ToolResultMessage;
}
const KEEP = null;
type Decision = StubDecision | typeof KEEP;

interface StateStubCache {
  /**
   * per occurrence: the lookup outcome and its stub, keyed by tool-call id then result timestamp
   * (numbers, so a render builds no key strings). Keyed by content, not by object, because pi hands
   * every render a fresh clone; equal occurrences share one stub object.
   */
  byId: Map<string, Map<number, Decision>>;
  /** results without a numeric timestamp, by id */
  bare: Map<string, Decision>;
  /**
   * Per input position, the (id, timestamp) looked up there last and the maps' value for it: a
   * sequential shortcut to the same decision (map values never change once set), so a fresh clone's
   * render does not hash every result id into session-sized maps. Timestamp -Infinity = none, NaN =
   * nothing looked up there yet. Kept dense (grown to the input's length before the pass): results
   * sit at scattered positions, and writing far past the end of a short array would turn it into a
   * sparse dictionary whose reads box every timestamp.
   */
  atId: (string | undefined)[];
  atTs: Float64Array;
  atDecision: (Decision | undefined)[];
}
const NO_TS = -Infinity;
/** Error-purge candidates of the current render as triples (see RenderContext.purgeCandidates). */
let candidateBuffer = new Int32Array(96);
export function purgeCandidateBuffer(): Int32Array { return candidateBuffer; }
function noteCandidate(n: number, at: number, opener: number, turns: number): number {
  if (n + 3 > candidateBuffer.length) { const g = new Int32Array(2 * candidateBuffer.length); g.set(candidateBuffer); candidateBuffer = g; }
  candidateBuffer[n] = at;
  candidateBuffer[n + 1] = opener;
  candidateBuffer[n + 2] = turns;
  return n + 3;
}
/** Stub hits of the current render (module buffers: a render is synchronous and never nested). */
let hitAt = new Int32Array(256);
const hitDecision: (StubDecision | null)[] = [];
const cacheByState = new WeakMap<CondenseState, StateStubCache>();
const protectedByRules = new WeakMap<ProtectionRules, WeakMap<ToolCallRecord, boolean>>();

function stateCache(state: CondenseState): StateStubCache {
  let c = cacheByState.get(state);
  if (!c) { c = { byId: new Map(), bare: new Map(), atId: [], atTs: new Float64Array(0), atDecision: [] }; cacheByState.set(state, c); }
  return c;
}

/** Grows the per-position shortcut to cover n positions (new positions hold nothing). */
function coverPositions(c: StateStubCache, n: number): void {
  if (c.atTs.length >= n) return;
  const ts = new Float64Array(Math.max(n, 2 * c.atTs.length)).fill(NaN);
  ts.set(c.atTs);
  c.atTs = ts;
  while (c.atId.length < ts.length) { c.atId.push(undefined); c.atDecision.push(undefined); }
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
function decide(state: CondenseState, cache: StateStubCache, m: ToolResultMessage, at: number): Decision {
  // Kept as a number (NO_TS when absent), never `number | undefined`: optimized code then holds it as
  // a raw double, where a union would box it into a fresh heap number on every result of every render.
  const hasTs = typeof m.timestamp === "number" && Number.isFinite(m.timestamp);
  const tsKey = hasTs ? m.timestamp! : NO_TS;
  const id = m.toolCallId;
  let cached: Decision | undefined;
  let byTs: Map<number, Decision> | undefined;
  const known = cache.atTs[at] === tsKey && cache.atId[at] === id;
  if (known) cached = cache.atDecision[at];
  else {
    const ts = hasTs ? tsKey : undefined;
    byTs = ts === undefined ? undefined : cache.byId.get(id);
    cached = ts === undefined ? cache.bare.get(id) : byTs?.get(ts);
  }
  let d: Decision;
  // The stub copies the message's tool name; a (rare) differing name gets its own, uncached decision.
  if (cached !== undefined && (cached === KEEP || cached.stub.toolName === (m.toolName ?? cached.record.toolName))) d = cached;
  else {
    const ts = hasTs ? tsKey : undefined;
    d = lookup(state, m, ts);
    if (cached === undefined) {
      if (ts === undefined) cache.bare.set(id, d);
      else if (byTs) byTs.set(ts, d);
      else cache.byId.set(id, new Map([[ts, d]]));
    }
  }
  if (!known) {
    // what the maps now hold for (id, timestamp)
    cache.atId[at] = id;
    cache.atTs[at] = tsKey;
    cache.atDecision[at] = cached === undefined ? d : cached;
  }
  return d;
}

function lookup(state: CondenseState, m: ToolResultMessage, ts: number | undefined): Decision {
  const key = occKey(m.toolCallId, ts);
  const lookupKey = isSummarized(state, key) ? key : hasLegacyBareRecord(state, m.toolCallId) ? m.toolCallId : undefined;
  // A key whose record is gone (an alias of a missing original) is not recoverable: keep the raw output.
  const record = lookupKey === undefined ? undefined : recordFor(state, lookupKey);
  if (!record || lookupKey === undefined) return KEEP;
  const name = typeof m.toolName === "string" ? m.toolName : record.toolName;
  const ref = state.keyToRef.get(lookupKey) ?? m.toolCallId;
  const text = record.stored
    ? storedStubText({ toolName: name, bytes: record.stored.bytes, preview: record.stored.preview, ref })
    : summaryStubText(ref);
  const stub: ToolResultMessage = { role: "toolResult", toolCallId: m.toolCallId, toolName: name, content: [{ type: "text", text }], isError: false };
  if (ts !== undefined) stub.timestamp = ts;
  return { key, record, stub: markProduced(stub) };
}

/** A copy of the stub (rendered output cloned by the host) is already stubbed. */
function isSameStub(m: ToolResultMessage, stub: ToolResultMessage): boolean {
  // Fields on the message itself first: an original usually fails here without its content being read.
  // (`details` read, not tested with `in`: a stub has none, and an undefined one serializes like none)
  if (m.isError !== false || m.timestamp !== stub.timestamp || m.details !== undefined || m.toolName !== stub.toolName) return false;
  const p = m.content.length === 1 ? m.content[0] : undefined;
  return isObject(p) && p.type === "text" && p.text === (stub.content[0] as { text: string }).text;
}

export function stubReplace(messages: readonly unknown[], ctx: RenderContext): readonly unknown[] {
  const { state, rules, settings } = ctx;
  // nothing indexed: nothing to stub (aliases need records too); the pass still classifies
  const stubbing = state.records.size > 0;
  const cache = stubbing ? stateCache(state) : undefined;
  if (cache) coverPositions(cache, messages.length);
  const k = settings.recoveryGraceTurns;
  const graceOn = typeof k === "number" && k > 0;
  let users = 0;
  let assistants = 0;
  // stub hits in two parallel module buffers (positions, decisions): nothing allocated per hit
  let hits = 0;
  let queries: { key: string; seen: number }[] | undefined;
  // Error purge (phase 2) needs the turn that opened each failed result; the pass tracks it with the
  // phase's own rule (see error-purge.ts) and notes failed results as candidates.
  const pe = settings.purgeErrors;
  const purging = !!pe && pe.enabled !== false;
  let opener = -1;
  let candidates = 0;
  // Chain-range prune (phase 3) resolves its boundaries from this pass (see chain-range-prune.ts).
  const chain = beginChainScan(state, settings, messages.length);
  const starts = chain?.starts;
  const ends = chain?.ends;
  const kind = chain?.kind;
  // One role dispatch per message: the readability rules of message-shape.ts (malformedReason,
  // isReadableToolResult/Assistant) applied inline, so no later pass re-reads every role for them.
  const memo = ctx.sizeMemo;
  if (memo) beginInputSizes(messages.length, memo);
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    // Sizes are taken here, while the message is in cache; a clean render discards them.
    if (memo) sizeInputAt(i, m, memo);
    if (!isObject(m)) {
      reportMalformedOne(ctx, m, "not-an-object");
      opener = -1;
      // an array is an object to the boundary rule and the range walk (they read its role like any other)
      if (chain) {
        const arrayLike = typeof m === "object" && m !== null;
        if (arrayLike) noteBoundary(chain, m as unknown as Record<string, unknown>, i);
        kind![i] = arrayLike ? K_USER : K_SKIP;
      }
      continue;
    }
    const role = m.role;
    if (kind) kind[i] = K_SKIP;
    if (typeof role !== "string") { reportMalformedOne(ctx, m, "missing-role"); opener = -1; continue; }
    if (role === "toolResult") {
      if (typeof m.toolCallId !== "string") { reportMalformedOne(ctx, m, "missing-tool-call-id"); opener = -1; continue; }
      if (!Array.isArray(m.content)) { reportMalformedOne(ctx, m, "bad-content"); opener = -1; continue; }
      if (kind) kind[i] = K_RESULT;
      if (purging && opener >= 0 && m.isError === true) candidates = noteCandidate(candidates, i, opener, assistants);
      if (!cache) continue;
      const r = m as unknown as ToolResultMessage;
      const d = decide(state, cache, r, i);
      if (graceOn && r.toolName === QUERY_TOOL_NAME) {
        const ts = typeof r.timestamp === "number" && Number.isFinite(r.timestamp) ? r.timestamp : undefined;
        (queries ??= []).push({ key: d?.key ?? occKey(r.toolCallId, ts), seen: users });
      }
      if (d === KEEP || d.stub === r || isSameStub(r, d.stub)) continue;
      // the verdict is kept on the decision (read anyway) instead of a per-record lookup every render
      if (d.rulesSeen !== rules) { d.protectedRecord = isProtectedRecord(rules, d.record); d.rulesSeen = rules; }
      if (d.protectedRecord) continue;
      if (hits === hitAt.length) { const g = new Int32Array(2 * hitAt.length); g.set(hitAt); hitAt = g; }
      hitAt[hits] = i;
      hitDecision[hits++] = d;
    } else if (role === "assistant") {
      if (Array.isArray(m.content)) { assistants++; opener = i; if (kind) { kind[i] = K_ASSISTANT; noteCalls(chain!, m.content, i); } } else { reportMalformedOne(ctx, m, "bad-content"); opener = -1; }
      if (ends) {
        const ts = m.timestamp;
        if (typeof ts === "number") { const e = tsSeek(ends, ts, chain!, 1); if (e !== undefined) noteEnd(chain!, e, i); }
      }
    } else if (role === "user") {
      if (typeof m.content !== "string" && !Array.isArray(m.content)) reportMalformedOne(ctx, m, "bad-content");
      if (graceOn && stubbing && !isChainSynthetic(m)) users++;
      opener = -1;
      if (kind) kind[i] = K_USER;
      if (starts) {
        const ts = m.timestamp;
        if (typeof ts === "number") { const e = tsSeek(starts, ts, chain!, 0); if (e !== undefined && !isChainSynthetic(m)) noteStart(chain!, e, i); }
      }
    } else if (role === "custom") {
      const readable = typeof m.content === "string" || Array.isArray(m.content);
      if (!readable) reportMalformedOne(ctx, m, "bad-content");
      // per-batch summaries are transparent to error purge's turn rule, and phase 3 may drop them
      if (isSummaryMessage(m)) {
        if (chain) { chain.summaryAt.push(i); if (readable) kind![i] = K_SUMMARY; }
      } else opener = -1;
    } else opener = -1;
  }
  ctx.purgeCandidates = candidates;
  ctx.chainScan = chain;
  ctx.assistantTurns = assistants;
  if (hits === 0) return messages;
  // CAP-QUERY-5, same rule as graceSet(): decided after the scan, once the user-turn count is known.
  let grace: Set<string> | undefined;
  if (queries) for (const q of queries) if (users - q.seen <= k) (grace ??= new Set()).add(q.key);
  let out: unknown[] | undefined;
  for (let h = 0; h < hits; h++) {
    const d = hitDecision[h]!;
    hitDecision[h] = null;
    if (grace?.has(d.key)) continue;
    out ??= messages.slice();
    out[hitAt[h]!] = d.stub;
    ctx.stats.stubbed++;
  }
  return out ?? messages;
}
