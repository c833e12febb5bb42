/**
 * Property tests of the render path over generated histories: reused ids, parallel calls, aborted
 * and errored turns with missing results, foreign roles (custom, branchSummary, compactionSummary,
 * bashExecution, unknown), per-batch summaries, errors, compressed chains and malformed entries.
 * They check the ARCHITECTURE invariants: tool pairing, idempotence, no-op reference, byte-stable
 * stubs, fail-closed ranges, exact sizes, and no throws on junk.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { occKey } from "../../src/keys.ts";
import { SUMMARY_CUSTOM_TYPE, type AgentMessage } from "../../src/messages.ts";
import { isReadableAssistant, isReadableToolResult } from "../../src/render/message-shape.ts";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { normalizeSettings } from "../../src/settings.ts";
import { buildState, createState, type CondenseState } from "../../src/state.ts";
import { emptyStats, type ChainEntry, type SummaryEntry, type ToolCallRecord } from "../../src/state-types.ts";

const RUNS = Number(process.env.CONDENSE_PROPERTY_RUNS ?? 300);
/** Reproduce a reported failure with FC_SEED=<seed> (and FC_PATH=<path>). */
const REPLAY = process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true } : {};
const POOL: [string, string][] = [["bash_1", "bash"], ["bash_2", "bash"], ["read_1", "read"], ["edit_1", "edit"], ["q_1", "context_tree_query"], ["todo_1", "todowrite"]];
const nameOf = (id: string) => POOL.find(([i]) => i === id)?.[1] ?? "bash";

type Segment =
  | { kind: "user" }
  | { kind: "turn"; calls: number[]; results: { call: number; orphan: boolean; isError: boolean }[]; stop: string; thinking: boolean; bigArgs: boolean }
  | { kind: "final"; thinking: boolean }
  | { kind: "foreign"; role: string }
  | { kind: "summary"; back: number; legacy: boolean }
  | { kind: "malformed"; value: unknown };

const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "user" as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("turn" as const),
      calls: fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 3 }),
      results: fc.array(fc.record({ call: fc.nat(5), orphan: fc.boolean(), isError: fc.boolean() }), { maxLength: 4 }).map((rs) => rs.map((r, i) => ({ ...r, orphan: r.orphan && i % 3 === 2 }))),
      stop: fc.constantFrom("toolUse", "toolUse", "toolUse", "aborted", "error"),
      thinking: fc.boolean(),
      bigArgs: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("final" as const), thinking: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("foreign" as const), role: fc.constantFrom("custom", "branchSummary", "compactionSummary", "bashExecution", "mystery") }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("summary" as const), back: fc.nat(6), legacy: fc.boolean() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("malformed" as const), value: fc.constantFrom<unknown>(null, 42, "text", {}, { role: "assistant", content: "x" }, { role: "toolResult", content: [] }, { role: "user" }) }) },
);

interface History { messages: AgentMessage[]; results: { id: string; ts: number }[]; users: number[]; finals: number[] }

/** Builds messages with unique, increasing timestamps (as the host writes them). */
function build(segments: Segment[]): History {
  const messages: AgentMessage[] = [];
  const results: { id: string; ts: number }[] = [];
  const users: number[] = [];
  const finals: number[] = [];
  let ts = 1000;
  const next = () => (ts += 10);
  for (const s of segments) {
    switch (s.kind) {
      case "user": { const t = next(); users.push(t); messages.push({ role: "user", content: [{ type: "text", text: `ask ${t}` }], timestamp: t }); break; }
      case "turn": {
        const ids = s.calls.map((c) => POOL[c]![0]);
        const content: unknown[] = s.thinking ? [{ type: "thinking", thinking: "hmm" }] : [];
        for (const id of ids) content.push({ type: "toolCall", id, name: nameOf(id), arguments: s.bigArgs ? { path: "p".repeat(80) } : { n: 1 } });
        messages.push({ role: "assistant", content, stopReason: s.stop, timestamp: next() } as AgentMessage);
        for (const r of s.results) {
          const id = r.orphan ? POOL[r.call % POOL.length]![0] : ids[r.call % ids.length]!;
          const t = next();
          results.push({ id, ts: t });
          messages.push({ role: "toolResult", toolCallId: id, toolName: nameOf(id), content: [{ type: "text", text: `out ${id} ${t}` }], isError: r.isError, timestamp: t } as AgentMessage);
        }
        break;
      }
      case "final": {
        const t = next(); finals.push(t);
        messages.push({ role: "assistant", content: s.thinking ? [{ type: "thinking", thinking: "so" }, { type: "text", text: "done" }] : [{ type: "text", text: "done" }], stopReason: "stop", timestamp: t } as AgentMessage);
        break;
      }
      case "foreign": messages.push({ role: s.role, customType: "ext", content: "note", timestamp: next() } as AgentMessage); break;
      case "summary": {
        const refs = results.slice(Math.max(0, results.length - 1 - s.back));
        const details = s.legacy ? { toolCallIds: refs.map((r) => r.id) } : { toolCallRefs: refs.map((r, i) => ({ shortId: `t${i + 1}`, toolCallId: r.id, resultTimestamp: r.ts })) };
        messages.push({ role: "custom", customType: SUMMARY_CUSTOM_TYPE, content: "batch summary", display: false, details, timestamp: next() } as AgentMessage);
        break;
      }
      case "malformed": messages.push(structuredClone(s.value) as AgentMessage); break;
    }
  }
  return { messages, results, users, finals };
}

interface StateChoices { index: boolean[]; legacy: boolean[]; stored: boolean[]; chains: { u: number; f: number; mode: "real" | "null" | "nowhere"; drop: number[]; body: boolean; prot: boolean }[] }
const choicesArb: fc.Arbitrary<StateChoices> = fc.record({
  index: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  legacy: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
  stored: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
  chains: fc.array(fc.record({ u: fc.nat(20), f: fc.nat(20), mode: fc.constantFrom("real" as const, "real" as const, "null" as const, "nowhere" as const), drop: fc.array(fc.nat(POOL.length - 1), { maxLength: 3 }), body: fc.boolean(), prot: fc.boolean() }), { maxLength: 4 }),
});

function stateFor(h: History, c: StateChoices, chainOverride?: ChainEntry[]): CondenseState {
  const records: ToolCallRecord[] = [];
  const summaries: SummaryEntry[] = [];
  let ref = 0;
  h.results.forEach((r, i) => {
    if (!c.index[i % c.index.length]) return;
    const legacy = c.legacy[i % c.legacy.length] && i % 4 === 0;
    const stored = c.stored[i % c.stored.length] && i % 3 === 0;
    records.push({
      key: occKey(r.id, legacy ? undefined : r.ts), toolCallId: r.id, toolName: nameOf(r.id), args: {}, resultText: stored ? "" : `out ${r.id}`,
      isError: false, turnIndex: i, timestamp: r.ts, ...(legacy ? {} : { resultTimestamp: r.ts }),
      ...(stored ? { stored: { bytes: 70_000, preview: "head" } } : { shortRef: `t${++ref}` }),
    });
  });
  for (let i = 0; i < records.length; i += 2) summaries.push({ id: `s${i}`, text: `summary ${i}`, refs: [], coverage: records.slice(i, i + 2).map((r) => r.key), toolNames: [], turnIndex: 0, timestamp: 0 });
  const chains: ChainEntry[] = c.chains.map((ch, i) => {
    const start = ch.mode === "nowhere" || h.users.length === 0 ? 5 : h.users[ch.u % h.users.length]!;
    // "real" entries mostly point at a final assistant after their start, as detection would record.
    const later = h.finals.filter((f) => f > start);
    const pool = later.length > 0 && ch.f % 4 !== 0 ? later : h.finals;
    return {
    blockId: `b${i + 1}`,
    startUserTimestamp: start,
    finalAssistantTimestamp: ch.mode === "null" || pool.length === 0 ? null : pool[ch.f % pool.length]!,
    droppedToolCallIds: ch.drop.map((d) => POOL[d]![0]),
    droppedOccurrenceKeys: records.slice(0, 2).map((r) => r.key),
    ...(ch.prot ? { protectedToolCallIds: ["todo_1"] } : {}),
    toolRefs: ["t1"],
    compressedAt: 900_000 + i,
    ...(ch.body ? { rangeSummaryText: `range ${i} {b1} {b2}` } : {}),
    };
  });
  return buildState(1, records, summaries, [], chainOverride ?? chains, null, emptyStats());
}

const settingsArb = fc.record({
  recoveryGraceTurns: fc.nat(3),
  protectedTools: fc.constantFrom([], ["todowrite"], ["context_tree_query"]),
  purgeErrors: fc.record({ enabled: fc.boolean(), cooldownTurns: fc.integer({ min: 1, max: 3 }), minArgChars: fc.constantFrom(0, 20, 500) }),
  chainCompression: fc.record({ enabled: fc.constantFrom(true, true, true, false), stripFinalAssistantThinking: fc.boolean() }),
}).map((s) => normalizeSettings(s));

const historyArb = fc.array(segmentArb, { maxLength: 40, size: "medium" }).map(build);
const caseArb = fc.tuple(historyArb, choicesArb, settingsArb);

/** Every readable result is answered by a call of the assistant that opened its turn, at most once. */
function pairingViolations(ms: readonly unknown[]): string[] {
  const bad: string[] = [];
  ms.forEach((m, i) => {
    if (!isReadableToolResult(m)) return;
    let j = i - 1;
    while (j >= 0 && isReadableToolResult(ms[j])) {
      if ((ms[j] as { toolCallId: string }).toolCallId === m.toolCallId) { bad.push(`${i}: duplicate ${m.toolCallId}`); return; }
      j--;
    }
    const opener = ms[j];
    if (!isReadableAssistant(opener) || !opener.content.some((b) => (b as { type?: string; id?: string }).type === "toolCall" && (b as { id: string }).id === m.toolCallId)) bad.push(`${i}: orphan ${m.toolCallId}`);
  });
  return bad;
}

describe("render properties", () => {
  it("tool pairing: no output toolResult lacks a call in the assistant that opened its turn (any input)", () => {
    fc.assert(fc.property(caseArb, ([h, c, s]) => {
      expect(pairingViolations(pruneMessages(h.messages, stateFor(h, c), { settings: s }).messages)).toEqual([]);
    }), { numRuns: RUNS, ...REPLAY });
  });

  it("idempotence: rendering the output again deep-equals it and returns the same reference", () => {
    const seen = { stubbed: 0, purged: 0, chainsApplied: 0, swept: 0, malformed: 0, unresolved: 0, mismatch: 0 };
    fc.assert(fc.property(caseArb, ([h, c, s]) => {
      const st = stateFor(h, c);
      const once = pruneMessages(h.messages, st, { settings: s });
      for (const k of ["stubbed", "purged", "chainsApplied", "swept", "malformed"] as const) if (once.stats[k] > 0) seen[k]++;
      if (once.diagnostics.some((d) => d.kind === "unresolved-range")) seen.unresolved++;
      if (once.diagnostics.some((d) => d.kind === "range-id-mismatch")) seen.mismatch++;
      const twice = pruneMessages(once.messages, st, { settings: s });
      expect(twice.messages).toEqual(once.messages);
      expect(twice.messages).toBe(once.messages);
      expect(twice.pruned).toBe(false);
    }), { numRuns: RUNS, ...REPLAY });
    if (process.env.CONDENSE_PROPERTY_STATS) console.log(seen);
    // The generator must actually exercise every phase, or the properties above prove little.
    for (const [k, n] of Object.entries(seen)) expect(n, `cases with ${k}`).toBeGreaterThan(RUNS / 40);
  });

  it("no-op: with an empty state, a rendered array renders to the same reference; pruned iff a new array", () => {
    fc.assert(fc.property(historyArb, settingsArb, (h, s) => {
      const empty = createState();
      const first = pruneMessages(h.messages, empty, { settings: s });
      expect(first.pruned).toBe(first.messages !== h.messages);
      if (!first.pruned) expect(first).toMatchObject({ beforeChars: 0, afterChars: 0 });
      const second = pruneMessages(first.messages, empty, { settings: s });
      expect(second.messages).toBe(first.messages);
    }), { numRuns: RUNS, ...REPLAY });
  });

  it("byte-stable stubs: independent renders of equal inputs give identical bytes", () => {
    fc.assert(fc.property(caseArb, ([h, c, s]) => {
      const a = pruneMessages(h.messages, stateFor(h, c), { settings: s });
      const b = pruneMessages(structuredClone(h.messages), stateFor(h, c), { settings: s });
      expect(JSON.stringify(b.messages)).toBe(JSON.stringify(a.messages));
    }), { numRuns: RUNS, ...REPLAY });
  });

  it("fail-closed: entries whose range is ambiguous or missing drop nothing and insert nothing", () => {
    fc.assert(fc.property(caseArb, fc.nat(20), ([h, c, s], pick) => {
      if (h.users.length === 0) return;
      const dupTs = h.users[pick % h.users.length]!;
      // A second user message with the same timestamp makes that start ambiguous.
      const msgs = [...h.messages, { role: "user", content: [{ type: "text", text: "dup" }], timestamp: dupTs } as AgentMessage];
      const base = stateFor(h, { ...c, chains: [] });
      const ambiguous: ChainEntry[] = [
        { blockId: "b1", startUserTimestamp: dupTs, finalAssistantTimestamp: h.finals[0] ?? 1, droppedToolCallIds: ["bash_1"], toolRefs: [], compressedAt: 1 },
        { blockId: "b2", startUserTimestamp: dupTs === h.users[0] ? 3 : h.users[0]!, finalAssistantTimestamp: null, droppedToolCallIds: ["bash_1"], toolRefs: [], compressedAt: 2 },
        { blockId: "b3", startUserTimestamp: 7, finalAssistantTimestamp: 8, droppedToolCallIds: [], toolRefs: [], compressedAt: 3 },
      ];
      const withChains = stateFor(h, c, ambiguous);
      const on = { settings: normalizeSettings({ ...s, chainCompression: { enabled: true } }) };
      const without = pruneMessages(msgs, base, on);
      const withAmb = pruneMessages(msgs, withChains, on);
      expect(withAmb.messages).toEqual(without.messages);
      expect(withAmb.stats.chainsApplied).toBe(0);
      expect(withAmb.diagnostics.filter((d) => d.kind === "unresolved-range").map((d) => d.dedupKey).sort()).toEqual(["b1", "b2", "b3"]);
    }), { numRuns: RUNS, ...REPLAY });
  });

  it("sizes: a pruned render reports JSON.stringify(array).length of input and output", () => {
    fc.assert(fc.property(caseArb, ([h, c, s]) => {
      const st = stateFor(h, c);
      // The second render sees a fresh clone (as pi's context hook delivers) and hits the size memo.
      for (const input of [h.messages, structuredClone(h.messages)]) {
        const r = pruneMessages(input, st, { settings: s });
        if (!r.pruned) return;
        expect(r.beforeChars).toBe(JSON.stringify(input).length);
        expect(r.afterChars).toBe(JSON.stringify(r.messages).length);
      }
    }), { numRuns: RUNS, ...REPLAY });
  });

  it("never throws on arbitrary junk, and passes junk elements through", () => {
    const h = build([{ kind: "user" }, { kind: "turn", calls: [0, 1], results: [{ call: 0, orphan: false, isError: true }, { call: 1, orphan: false, isError: false }], stop: "toolUse", thinking: true, bigArgs: true }, { kind: "final", thinking: true }]);
    const st = stateFor(h, { index: [true], legacy: [false], stored: [false], chains: [{ u: 0, f: 0, mode: "real", drop: [0], body: false, prot: false }] });
    const s = normalizeSettings({ purgeErrors: { cooldownTurns: 1, minArgChars: 0 } });
    fc.assert(fc.property(fc.array(fc.anything()), fc.nat(), (junk, at) => {
      const mixed = [...h.messages] as unknown[];
      mixed.splice(at % (mixed.length + 1), 0, ...junk);
      for (const input of [junk, mixed]) {
        const r = pruneMessages(input as AgentMessage[], st, { settings: s });
        for (const j of junk) if (typeof j === "object" && j !== null) expect(r.messages.includes(j as AgentMessage) || isReadableToolResult(j)).toBe(true);
      }
    }), { numRuns: RUNS, ...REPLAY });
  });
});
