/**
 * The flush request detects chains once and measures each message once (message-sizes.ts): the
 * request it builds is the one that separate passes (chains on the branch with the closing reply,
 * chains again for the metrics, every message serialized) give, on every branch shape the reply path
 * meets: a closing reply appended, already persisted, none, closing no chain, an interrupted chain.
 */
import { A, F, R, U } from "@condense/test-support/messages";
import { describe, expect, it } from "vitest";
import {
  buildState,
  computeContextMetrics,
  createState,
  DEFAULT_SETTINGS,
  detectChains,
  emptyStats,
  graceSet,
  isChainDeferred,
  withClosingMessage,
  type AgentMessage,
  type CondenseState,
} from "@condense/core";
import { buildFlushRequest, type FlushInput } from "../src/flush-request.ts";
import { messageSizes } from "../src/message-sizes.ts";

const S = { ...DEFAULT_SETTINGS, recoveryGraceTurns: 2 };
const user = (ts: number) => U(ts, `task ${ts}`, { plain: true });
const call = (ts: number, id: string, name = "bash") => A(ts, { id, name, args: { command: `ls ${ts}` } });
const result = (ts: number, id: string, text: string, name = "bash") => R(ts, id, text, { name });
const reply = (ts: number) => F(ts, `done ${ts}`);

/** The request as separate passes build it: the reference the shared pass must equal. */
function reference(input: FlushInput, state: CondenseState) {
  const detection = withClosingMessage(input.branch, input.closingMessage);
  const grace = graceSet(input.branch, S.recoveryGraceTurns);
  const chains = detectChains(detection, S)
    .filter((c) => c.startUserTimestamp !== null)
    .map((c) => {
      const keys = c.middleOccurrenceKeys.length > 0 ? c.middleOccurrenceKeys : c.middleToolCallIds;
      return {
        startUserTimestamp: c.startUserTimestamp,
        finalAssistantTimestamp: c.finalAssistantTimestamp,
        middleToolCallIds: c.middleToolCallIds,
        middleOccurrenceKeys: c.middleOccurrenceKeys,
        protectedToolCallIds: c.protectedToolCallIds,
        graceKeys: keys.filter((k) => grace.has(k)),
        deferred: isChainDeferred(c, grace),
      };
    });
  const metrics = { ...computeContextMetrics(input.branch, state, S) };
  if (input.usage) Object.assign(metrics, { tokens: input.usage.tokens, contextWindow: input.usage.contextWindow });
  return { trigger: input.trigger, metrics, chains, settings: { ...S } };
}

function branchOf(chains: number, openTail: boolean): AgentMessage[] {
  const b: AgentMessage[] = [];
  let ts = 1;
  for (let c = 0; c < chains; c++) {
    b.push(user(ts++));
    for (let k = 0; k < 3 + (c % 3); k++) {
      const id = `bash_${c}_${k}`;
      b.push(call(ts++, id), result(ts++, id, "x".repeat(200 * (k + 1) + c)));
    }
    // a chain interrupted by the next user message every third chain
    if (c % 3 !== 2) b.push(reply(ts++));
  }
  if (openTail) {
    b.push(user(ts++));
    b.push(call(ts++, "read_tail", "read"), result(ts++, "read_tail", "tail output"));
    b.push(call(ts++, "q_tail", "context_tree_query"), result(ts++, "q_tail", "recovered"));
  }
  return b;
}

describe("buildFlushRequest: one chain detection, cached sizes", () => {
  const state = buildState(
    1,
    [],
    [],
    [],
    [],
    {
      lastAttemptedToolCallId: "bash_0_2",
      lastAttemptedToolName: "bash",
      lastAttemptedTurnIndex: 2,
      lastAttemptedTimestamp: 7,
      attemptedBatchCount: 1,
      attemptedToolCallCount: 3,
      rawCharCount: 1200,
      summaryCharCount: 100,
      outcome: "summarized",
    },
    emptyStats(),
  );
  const cases: { name: string; input: FlushInput }[] = [];
  for (const n of [0, 1, 4, 7]) {
    const open = branchOf(n, true);
    const closed = branchOf(n, false);
    const closing = reply(10_000 + n);
    cases.push({
      name: `${n} chains, reply appended`,
      input: { trigger: "message-end", branch: open, closingMessage: closing },
    });
    cases.push({
      name: `${n} chains, reply already persisted`,
      input: { trigger: "message-end", branch: [...open, closing], closingMessage: closing },
    });
    cases.push({
      name: `${n} chains, budget, no reply`,
      input: { trigger: "budget", branch: open, usage: { tokens: 900, contextWindow: 1000 } },
    });
    cases.push({
      name: `${n} closed chains, reply closes none`,
      input: { trigger: "message-end", branch: closed, closingMessage: closing },
    });
    cases.push({
      name: `${n} chains, tool-calling assistant appended`,
      input: { trigger: "delta", branch: open, closingMessage: call(20_000, "late") },
    });
  }
  for (const { name, input } of cases) {
    it(name, () => {
      const sizeOf = messageSizes();
      for (const st of [state, createState()]) {
        const expected = reference(input, st);
        expect(buildFlushRequest(input, st, S).body).toEqual(expected);
        // twice with one size cache: the cached sizes give the same request
        expect(buildFlushRequest(input, st, S, sizeOf).body).toEqual(expected);
        expect(buildFlushRequest(input, st, S, sizeOf).body).toEqual(expected);
      }
    });
  }
});
