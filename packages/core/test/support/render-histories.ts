/**
 * Generated histories for the render's property tests: reused ids, parallel calls, aborted and
 * errored turns with missing results, foreign roles (custom, branchSummary, compactionSummary,
 * bashExecution, unknown), per-batch summaries, errors, compressed chains, malformed entries, and
 * malformed tool results (string, null or missing content, missing ids) inside turns, after barriers
 * and inside compressed ranges. A history can be extended with later turns (fresh timestamps, as a
 * host appends them).
 */
import fc from "fast-check";
import { F, R, U } from "@condense/test-support/messages";
import { occKey } from "../../src/keys.ts";
import { SUMMARY_CUSTOM_TYPE, type AgentMessage } from "../../src/messages.ts";
import { isReadableAssistant, isReadableToolResult } from "../../src/render/message-shape.ts";
import { normalizeSettings } from "../../src/settings.ts";
import { buildState, type CondenseState } from "../../src/state.ts";
import { emptyStats, type ChainEntry, type SummaryEntry, type ToolCallRecord } from "../../src/state-types.ts";

export const RUNS = Number(process.env.CONDENSE_PROPERTY_RUNS ?? 300);
/** Reproduce a reported failure with FC_SEED=<seed> (and FC_PATH=<path>). */
export const REPLAY = process.env.FC_SEED
  ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH, endOnFailure: true }
  : {};
export const POOL: [string, string][] = [
  ["bash_1", "bash"],
  ["bash_2", "bash"],
  ["read_1", "read"],
  ["edit_1", "edit"],
  ["q_1", "context_tree_query"],
  ["todo_1", "todowrite"],
];
const nameOf = (id: string) => POOL.find(([i]) => i === id)?.[1] ?? "bash";

export type Segment =
  | { kind: "user" }
  | {
      kind: "turn";
      calls: number[];
      results: { call: number; orphan: boolean; isError: boolean }[];
      stop: string;
      thinking: boolean;
      bigArgs: boolean;
      bad?: BadShape;
    }
  | { kind: "final"; thinking: boolean }
  | { kind: "foreign"; role: string }
  | { kind: "summary"; back: number; legacy: boolean }
  | { kind: "malformed"; value: unknown }
  /** a tool result the render cannot read: after whatever came before it (a barrier, a turn, nothing) */
  | { kind: "badResult"; shape: BadShape; answers: boolean };

/** How a malformed tool result is broken. */
export type BadShape = "string-content" | "null-content" | "no-content" | "no-id" | "numeric-id";
const badShapeArb = fc.constantFrom<BadShape>("string-content", "null-content", "no-content", "no-id", "numeric-id");

export const segmentArb: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 3, arbitrary: fc.constant({ kind: "user" as const }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: fc.constant("turn" as const),
      calls: fc.array(fc.nat(POOL.length - 1), { minLength: 1, maxLength: 3 }),
      results: fc
        .array(fc.record({ call: fc.nat(5), orphan: fc.boolean(), isError: fc.boolean() }), { maxLength: 4 })
        .map((rs) => rs.map((r, i) => ({ ...r, orphan: r.orphan && i % 3 === 2 }))),
      stop: fc.constantFrom("toolUse", "toolUse", "toolUse", "aborted", "error"),
      thinking: fc.boolean(),
      bigArgs: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant("final" as const), thinking: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("foreign" as const),
      role: fc.constantFrom("custom", "branchSummary", "compactionSummary", "bashExecution", "mystery"),
    }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("summary" as const), back: fc.nat(6), legacy: fc.boolean() }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant("malformed" as const),
      value: fc.constantFrom<unknown>(
        null,
        42,
        "text",
        {},
        { role: "assistant", content: "x" },
        { role: "toolResult", content: [] },
        { role: "user" },
      ),
    }),
  },
);

export interface History {
  messages: AgentMessage[];
  results: { id: string; ts: number }[];
  users: number[];
  finals: number[];
  lastTs: number;
}

/** A tool result answering `id` (or no one), broken the way `shape` says. */
function badResult(shape: BadShape, id: string, ts: number): AgentMessage {
  const m: Record<string, unknown> = {
    role: "toolResult",
    toolCallId: id,
    toolName: nameOf(id),
    isError: false,
    timestamp: ts,
  };
  if (shape === "string-content") m.content = `raw ${id}`;
  else if (shape === "null-content") m.content = null;
  else if (shape === "no-content") {
    /* no content field */
  } else m.content = [{ type: "text", text: `out ${ts}` }];
  if (shape === "no-id") delete m.toolCallId;
  if (shape === "numeric-id") m.toolCallId = 7;
  return m as unknown as AgentMessage;
}

/** Builds messages with unique, increasing timestamps (as the host writes them). */
export function build(segments: Segment[], after?: History): History {
  const messages: AgentMessage[] = after ? [...after.messages] : [];
  const results: { id: string; ts: number }[] = after ? [...after.results] : [];
  const users: number[] = after ? [...after.users] : [];
  const finals: number[] = after ? [...after.finals] : [];
  let ts = after?.lastTs ?? 1000;
  let lastCall: string | undefined;
  const next = () => (ts += 10);
  for (const s of segments) {
    switch (s.kind) {
      case "user": {
        const t = next();
        users.push(t);
        messages.push(U(t, `ask ${t}`));
        break;
      }
      case "turn": {
        const ids = s.calls.map((c) => POOL[c]![0]);
        const content: unknown[] = s.thinking ? [{ type: "thinking", thinking: "hmm" }] : [];
        for (const id of ids)
          content.push({
            type: "toolCall",
            id,
            name: nameOf(id),
            arguments: s.bigArgs ? { path: "p".repeat(80) } : { n: 1 },
          });
        messages.push({ role: "assistant", content, stopReason: s.stop, timestamp: next() } as AgentMessage);
        for (const r of s.results) {
          const id = r.orphan ? POOL[r.call % POOL.length]![0] : ids[r.call % ids.length]!;
          const t = next();
          results.push({ id, ts: t });
          messages.push(R(t, id, `out ${id} ${t}`, { name: nameOf(id), isError: r.isError }));
        }
        // a malformed answer to one of this turn's calls: chain compression may drop its assistant
        if (s.bad) messages.push(badResult(s.bad, ids[ids.length - 1]!, next()));
        lastCall = ids[0];
        break;
      }
      case "final": {
        const t = next();
        finals.push(t);
        messages.push(F(t, "done", s.thinking ? "so" : undefined));
        break;
      }
      case "foreign":
        messages.push({ role: s.role, customType: "ext", content: "note", timestamp: next() } as AgentMessage);
        break;
      case "summary": {
        const refs = results.slice(Math.max(0, results.length - 1 - s.back));
        const details = s.legacy
          ? { toolCallIds: refs.map((r) => r.id) }
          : { toolCallRefs: refs.map((r, i) => ({ shortId: `t${i + 1}`, toolCallId: r.id, resultTimestamp: r.ts })) };
        messages.push({
          role: "custom",
          customType: SUMMARY_CUSTOM_TYPE,
          content: "batch summary",
          display: false,
          details,
          timestamp: next(),
        } as AgentMessage);
        break;
      }
      case "malformed":
        messages.push(structuredClone(s.value) as AgentMessage);
        break;
      case "badResult":
        messages.push(badResult(s.shape, s.answers && lastCall ? lastCall : POOL[ts % POOL.length]![0], next()));
        break;
    }
  }
  return { messages, results, users, finals, lastTs: ts };
}

export interface StateChoices {
  index: boolean[];
  legacy: boolean[];
  stored: boolean[];
  chains: { u: number; f: number; mode: "real" | "null" | "nowhere"; drop: number[]; body: boolean; prot: boolean }[];
}
export const choicesArb: fc.Arbitrary<StateChoices> = fc.record({
  index: fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }),
  legacy: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
  stored: fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }),
  chains: fc.array(
    fc.record({
      u: fc.nat(20),
      f: fc.nat(20),
      mode: fc.constantFrom("real" as const, "real" as const, "null" as const, "nowhere" as const),
      drop: fc.array(fc.nat(POOL.length - 1), { maxLength: 3 }),
      body: fc.boolean(),
      prot: fc.boolean(),
    }),
    { maxLength: 4 },
  ),
});

export function stateFor(h: History, c: StateChoices, chainOverride?: ChainEntry[]): CondenseState {
  const records: ToolCallRecord[] = [];
  const summaries: SummaryEntry[] = [];
  let ref = 0;
  h.results.forEach((r, i) => {
    if (!c.index[i % c.index.length]) return;
    const legacy = c.legacy[i % c.legacy.length] && i % 4 === 0;
    const stored = c.stored[i % c.stored.length] && i % 3 === 0;
    records.push({
      key: occKey(r.id, legacy ? undefined : r.ts),
      toolCallId: r.id,
      toolName: nameOf(r.id),
      args: {},
      resultText: stored ? "" : `out ${r.id}`,
      isError: false,
      turnIndex: i,
      timestamp: r.ts,
      ...(legacy ? {} : { resultTimestamp: r.ts }),
      ...(stored ? { stored: { bytes: 70_000, preview: "head" } } : { shortRef: `t${++ref}` }),
    });
  });
  for (let i = 0; i < records.length; i += 2)
    summaries.push({
      id: `s${i}`,
      text: `summary ${i}`,
      refs: [],
      coverage: records.slice(i, i + 2).map((r) => r.key),
      toolNames: [],
      turnIndex: 0,
      timestamp: 0,
    });
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

export const settingsArb = fc
  .record({
    recoveryGraceTurns: fc.nat(3),
    protectedTools: fc.constantFrom([], ["todowrite"], ["context_tree_query"]),
    purgeErrors: fc.record({
      enabled: fc.boolean(),
      cooldownTurns: fc.integer({ min: 1, max: 3 }),
      minArgChars: fc.constantFrom(0, 20, 500),
    }),
    chainCompression: fc.record({
      enabled: fc.constantFrom(true, true, true, false),
      stripFinalAssistantThinking: fc.boolean(),
    }),
  })
  .map((s) => normalizeSettings(s));

export const historyArb = fc.array(segmentArb, { maxLength: 40, size: "medium" }).map(build);
export const caseArb = fc.tuple(historyArb, choicesArb, settingsArb);

/** Every readable result is answered by a call of the assistant that opened its turn, at most once. */
export function pairingViolations(ms: readonly unknown[]): string[] {
  const bad: string[] = [];
  ms.forEach((m, i) => {
    if (!isReadableToolResult(m)) return;
    let j = i - 1;
    while (j >= 0 && isReadableToolResult(ms[j])) {
      if ((ms[j] as { toolCallId: string }).toolCallId === m.toolCallId) {
        bad.push(`${i}: duplicate ${m.toolCallId}`);
        return;
      }
      j--;
    }
    const opener = ms[j];
    if (
      !isReadableAssistant(opener) ||
      !opener.content.some(
        (b) => (b as { type?: string; id?: string }).type === "toolCall" && (b as { id: string }).id === m.toolCallId,
      )
    )
      bad.push(`${i}: orphan ${m.toolCallId}`);
  });
  return bad;
}

/** segmentArb plus malformed tool results, as turn tails and on their own (after any segment). */
export const malformedSegmentArb: fc.Arbitrary<Segment> = fc.oneof(
  { weight: 8, arbitrary: segmentArb },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant("badResult" as const), shape: badShapeArb, answers: fc.boolean() }),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        segmentArb.filter((x) => x.kind === "turn"),
        badShapeArb,
      )
      .map(([t, bad]) => ({ ...t, bad }) as Segment),
  },
);
export const malformedHistoryArb = fc
  .array(malformedSegmentArb, { maxLength: 40, size: "medium" })
  .map((s) => build(s));
export const malformedCaseArb = fc.tuple(malformedHistoryArb, choicesArb, settingsArb);

/**
 * Pairing as a provider checks it, for every element with role `toolResult` whatever its shape: its
 * id is a string called by the assistant that opened its turn (only tool results in between), and no
 * earlier result of that turn answered it.
 */
export function strictPairingViolations(ms: readonly unknown[]): string[] {
  const bad: string[] = [];
  const isResult = (m: unknown) =>
    typeof m === "object" && m !== null && (m as { role?: unknown }).role === "toolResult";
  ms.forEach((m, i) => {
    if (!isResult(m)) return;
    const id = (m as { toolCallId?: unknown }).toolCallId;
    if (typeof id !== "string") {
      bad.push(`${i}: result without an id`);
      return;
    }
    let j = i - 1;
    while (j >= 0 && isResult(ms[j])) {
      if ((ms[j] as { toolCallId?: unknown }).toolCallId === id) {
        bad.push(`${i}: duplicate ${id}`);
        return;
      }
      j--;
    }
    const opener = ms[j];
    if (
      !isReadableAssistant(opener) ||
      !opener.content.some(
        (b) => (b as { type?: string; id?: string }).type === "toolCall" && (b as { id: string }).id === id,
      )
    )
      bad.push(`${i}: orphan ${id}`);
  });
  return bad;
}
