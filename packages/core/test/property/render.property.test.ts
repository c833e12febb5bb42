/**
 * Property tests of the render path over generated histories: reused ids, parallel calls, aborted
 * and errored turns with missing results, foreign roles (custom, branchSummary, compactionSummary,
 * bashExecution, unknown), per-batch summaries, errors, compressed chains and malformed entries.
 * They check the ARCHITECTURE invariants: tool pairing, idempotence, no-op reference, byte-stable
 * stubs, fail-closed ranges, exact sizes, and no throws on junk.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { AgentMessage } from "../../src/messages.ts";
import { pruneMessages } from "../../src/render/prune-messages.ts";
import { normalizeSettings } from "../../src/settings.ts";
import { createState } from "../../src/state.ts";
import type { ChainEntry } from "../../src/state-types.ts";
import {
  build,
  caseArb,
  historyArb,
  pairingViolations,
  REPLAY,
  RUNS,
  settingsArb,
  stateFor,
} from "../support/render-histories.ts";

describe("render properties", () => {
  it("tool pairing: no output toolResult lacks a call in the assistant that opened its turn (any input)", () => {
    fc.assert(
      fc.property(caseArb, ([h, c, s]) => {
        expect(pairingViolations(pruneMessages(h.messages, stateFor(h, c), { settings: s }).messages)).toEqual([]);
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });

  it("idempotence: rendering the output again deep-equals it and returns the same reference", () => {
    const seen = { stubbed: 0, purged: 0, chainsApplied: 0, swept: 0, malformed: 0, unresolved: 0, mismatch: 0 };
    fc.assert(
      fc.property(caseArb, ([h, c, s]) => {
        const st = stateFor(h, c);
        const once = pruneMessages(h.messages, st, { settings: s });
        for (const k of ["stubbed", "purged", "chainsApplied", "swept", "malformed"] as const)
          if (once.stats[k] > 0) seen[k]++;
        if (once.diagnostics.some((d) => d.kind === "unresolved-range")) seen.unresolved++;
        if (once.diagnostics.some((d) => d.kind === "range-id-mismatch")) seen.mismatch++;
        const twice = pruneMessages(once.messages, st, { settings: s });
        expect(twice.messages).toEqual(once.messages);
        expect(twice.messages).toBe(once.messages);
        expect(twice.pruned).toBe(false);
      }),
      { numRuns: RUNS, ...REPLAY },
    );
    if (process.env.CONDENSE_PROPERTY_STATS) console.log(seen);
    // The generator must actually exercise every phase, or the properties above prove little.
    for (const [k, n] of Object.entries(seen)) expect(n, `cases with ${k}`).toBeGreaterThan(RUNS / 40);
  });

  it("no-op: with an empty state, a rendered array renders to the same reference; pruned iff a new array", () => {
    fc.assert(
      fc.property(historyArb, settingsArb, (h, s) => {
        const empty = createState();
        const first = pruneMessages(h.messages, empty, { settings: s });
        expect(first.pruned).toBe(first.messages !== h.messages);
        if (!first.pruned) expect(first).toMatchObject({ beforeChars: 0, afterChars: 0 });
        const second = pruneMessages(first.messages, empty, { settings: s });
        expect(second.messages).toBe(first.messages);
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });

  it("byte-stable stubs: independent renders of equal inputs give identical bytes", () => {
    fc.assert(
      fc.property(caseArb, ([h, c, s]) => {
        const a = pruneMessages(h.messages, stateFor(h, c), { settings: s });
        const b = pruneMessages(structuredClone(h.messages), stateFor(h, c), { settings: s });
        expect(JSON.stringify(b.messages)).toBe(JSON.stringify(a.messages));
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });

  it("fail-closed: entries whose range is ambiguous or missing drop nothing and insert nothing", () => {
    fc.assert(
      fc.property(caseArb, fc.nat(20), ([h, c, s], pick) => {
        if (h.users.length === 0) return;
        const dupTs = h.users[pick % h.users.length]!;
        // A second user message with the same timestamp makes that start ambiguous.
        const msgs = [
          ...h.messages,
          { role: "user", content: [{ type: "text", text: "dup" }], timestamp: dupTs } as AgentMessage,
        ];
        const base = stateFor(h, { ...c, chains: [] });
        const ambiguous: ChainEntry[] = [
          {
            blockId: "b1",
            startUserTimestamp: dupTs,
            finalAssistantTimestamp: h.finals[0] ?? 1,
            droppedToolCallIds: ["bash_1"],
            toolRefs: [],
            compressedAt: 1,
          },
          {
            blockId: "b2",
            startUserTimestamp: dupTs === h.users[0] ? 3 : h.users[0]!,
            finalAssistantTimestamp: null,
            droppedToolCallIds: ["bash_1"],
            toolRefs: [],
            compressedAt: 2,
          },
          {
            blockId: "b3",
            startUserTimestamp: 7,
            finalAssistantTimestamp: 8,
            droppedToolCallIds: [],
            toolRefs: [],
            compressedAt: 3,
          },
        ];
        const withChains = stateFor(h, c, ambiguous);
        const on = { settings: normalizeSettings({ ...s, chainCompression: { enabled: true } }) };
        const without = pruneMessages(msgs, base, on);
        const withAmb = pruneMessages(msgs, withChains, on);
        expect(withAmb.messages).toEqual(without.messages);
        expect(withAmb.stats.chainsApplied).toBe(0);
        expect(
          withAmb.diagnostics
            .filter((d) => d.kind === "unresolved-range")
            .map((d) => d.dedupKey)
            .sort(),
        ).toEqual(["b1", "b2", "b3"]);
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });

  it("sizes: a pruned render reports JSON.stringify(array).length of input and output", () => {
    fc.assert(
      fc.property(caseArb, ([h, c, s]) => {
        const st = stateFor(h, c);
        // The second render sees a fresh clone (as pi's context hook delivers) and hits the size memo.
        for (const input of [h.messages, structuredClone(h.messages)]) {
          const r = pruneMessages(input, st, { settings: s });
          if (!r.pruned) return;
          expect(r.beforeChars).toBe(JSON.stringify(input).length);
          expect(r.afterChars).toBe(JSON.stringify(r.messages).length);
        }
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });

  it("never throws on arbitrary junk, and passes junk elements through", () => {
    const h = build([
      { kind: "user" },
      {
        kind: "turn",
        calls: [0, 1],
        results: [
          { call: 0, orphan: false, isError: true },
          { call: 1, orphan: false, isError: false },
        ],
        stop: "toolUse",
        thinking: true,
        bigArgs: true,
      },
      { kind: "final", thinking: true },
    ]);
    const st = stateFor(h, {
      index: [true],
      legacy: [false],
      stored: [false],
      chains: [{ u: 0, f: 0, mode: "real", drop: [0], body: false, prot: false }],
    });
    const s = normalizeSettings({ purgeErrors: { cooldownTurns: 1, minArgChars: 0 } });
    fc.assert(
      fc.property(fc.array(fc.anything()), fc.nat(), (junk, at) => {
        const mixed = [...h.messages] as unknown[];
        mixed.splice(at % (mixed.length + 1), 0, ...junk);
        for (const input of [junk, mixed]) {
          const r = pruneMessages(input as AgentMessage[], st, { settings: s });
          // Junk survives, except a tool result (of any shape) that no call opened: pairing wins.
          for (const j of junk)
            if (typeof j === "object" && j !== null)
              expect(r.messages.includes(j as AgentMessage) || (j as { role?: unknown }).role === "toolResult").toBe(
                true,
              );
        }
      }),
      { numRuns: RUNS, ...REPLAY },
    );
  });
});
