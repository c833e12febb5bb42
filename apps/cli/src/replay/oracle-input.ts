/**
 * Builds the oracle's view of a replayed session (core's `ScheduleSession`): per request the raw
 * context size, whether the cache had expired and the output; per turn its raw size and its size
 * condensed by the summaries the replay produced. The condensed sizes come from the final render of
 * the branch (with every turn flushed), so the oracle and the policy use the same summaries; each
 * rendered message is attributed to the turn of the raw message it renders (by role, timestamp and
 * tool-call id), a summary to the turns of the results it covers, in proportion to their size.
 */
import {
  isAssistant,
  isSummaryMessage,
  isToolResult,
  messageChars,
  toolCallsOf,
  tokensOfChars,
  type AgentMessage,
  type ScheduleSession,
} from "@condense/core";

const keyOf = (m: AgentMessage) =>
  isToolResult(m) ? `r:${m.toolCallId}:${m.timestamp ?? ""}` : `${m.role}:${m.timestamp ?? ""}`;

export interface OracleCall {
  rawTokens: number;
  messages: number;
  cold: boolean;
  outputTokens: number;
}

export function scheduleSessionOf(
  raw: readonly AgentMessage[],
  rendered: readonly AgentMessage[],
  calls: readonly OracleCall[],
): ScheduleSession {
  const K = calls.length;
  // Turn t: the raw messages from request t's context end to request t+1's.
  const turnOfIndex = (i: number) => {
    let lo = 0;
    let hi = K - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (calls[mid]!.messages <= i) lo = mid;
      else hi = mid - 1;
    }
    return calls[lo]!.messages <= i ? lo : -1;
  };
  const byKey = new Map<string, number[]>();
  const turnOfCall = new Map<string, number>();
  const resultChars = new Map<string, number>();
  const rawChars = new Array<number>(K).fill(0);
  raw.forEach((m, i) => {
    const t = turnOfIndex(i);
    // The messages of the first request's context (the prompt) belong to no turn; they are keyed
    // too, so that their render is not taken for part of turn 0 (a long prompt made any first flush
    // look as if it added the prompt again to every request, and no schedule could pay).
    const k = keyOf(m);
    const q = byKey.get(k);
    if (q) q.push(t);
    else byKey.set(k, [t]);
    if (t < 0) return;
    rawChars[t] = rawChars[t]! + messageChars(m) + 1;
    if (isToolResult(m)) {
      turnOfCall.set(m.toolCallId, t);
      resultChars.set(m.toolCallId, messageChars(m));
    }
  });
  const condChars = new Array<number>(K).fill(0);
  let current = -1;
  for (const m of rendered) {
    let t: number | undefined;
    const q = byKey.get(keyOf(m));
    if (q && q.length > 0) {
      t = q.shift();
      if (t === -1) continue;
    } else if (isSummaryMessage(m)) {
      // A summary covering several turns' results is shared among those turns in proportion to the
      // results it covers (one summary of the whole session must not all land on its first turn).
      const refs = (m.details as { toolCallRefs?: { toolCallId?: string }[] } | undefined)?.toolCallRefs ?? [];
      const weight = new Map<number, number>();
      for (const ref of refs) {
        const rt = ref.toolCallId === undefined ? undefined : turnOfCall.get(ref.toolCallId);
        if (rt === undefined) continue;
        weight.set(rt, (weight.get(rt) ?? 0) + (resultChars.get(ref.toolCallId!) ?? 0) + 1);
      }
      const total = [...weight.values()].reduce((a, b) => a + b, 0);
      if (total > 0) {
        const size = messageChars(m) + 1;
        for (const [rt, w] of weight) condChars[rt] = condChars[rt]! + (size * w) / total;
        current = Math.max(current, Math.min(...weight.keys()));
        continue;
      }
    }
    if (t === undefined || t < 0) t = Math.max(0, current);
    current = Math.max(current, t);
    condChars[t] = condChars[t]! + messageChars(m) + 1;
  }
  const rawTotal = calls.map((c) => c.rawTokens);
  // A turn's raw size is the growth between its requests (so sizes add up to what was sent); its
  // condensed size takes off what the render reclaimed of it. A turn whose condensed form is larger
  // (summaries attributed to it) keeps the difference: a flush can cost more than it reclaims.
  const rawT = rawTotal.map((x, t) => (t + 1 < K ? rawTotal[t + 1]! - x : tokensOfChars(rawChars[t]!)));
  const cond = rawT.map((x, t) => x - tokensOfChars(rawChars[t]! - condChars[t]!));
  const lag = calls.map((_, t) => {
    const a = raw[calls[t]!.messages];
    return a && isAssistant(a) && toolCallsOf(a).length > 0 ? 1 : 0;
  });
  return { rawTotal, raw: rawT, cond, lag, cold: calls.map((c) => c.cold), output: calls.map((c) => c.outputTokens) };
}
