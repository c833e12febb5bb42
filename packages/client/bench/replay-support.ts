/**
 * What bench:client and alloc-per-turn share: a client mirroring the condensed state a long session
 * reaches (served by an in-memory host), and the session's assistant turns as pi's hooks see them.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  isAssistant,
  isToolResult,
  normalizeSettings,
  readPiSession,
  stateSnapshot,
  type AgentMessage,
  type CondenseState,
  type StateDelta,
} from "@condense/core";
import { createCondenseClient, type ClientEvent, type CondenseClient, type CondenseHost } from "../src/index.ts";
import { buildCondensedState } from "../../core/test/support/condensed-state.ts";

export const settings = normalizeSettings({});

/** The fixture's state as the snapshot a service sends, served as version 1 as before. */
const deltaOf = (state: CondenseState): StateDelta => ({ ...stateSnapshot(state), toVersion: 1 });

/** An in-memory service: serves one state snapshot and acknowledges every capture and flush. */
function memoryHost(delta: StateDelta): CondenseHost {
  const json = (body: unknown, status = 200) =>
    new Response(JSON.stringify(body), { status, headers: { "content-type": "application/json" } });
  let seq = 0;
  return {
    baseUrl: "http://bench.local",
    apiKey: "ck_bench",
    close: async () => {},
    fetch: async (input, init) => {
      const url = new URL(typeof input === "string" ? input : input instanceof URL ? input.href : input.url);
      if (url.pathname.endsWith("/state"))
        return json(
          Number(url.searchParams.get("since")) >= 1
            ? { ...delta, fromVersion: 1, records: [], summaries: [], aliases: [], chains: [] }
            : delta,
        );
      if (url.pathname.endsWith("/captures"))
        return json({ captureId: JSON.parse(String(init?.body)).captureId, accepted: 1, duplicates: 0, maxSeq: ++seq });
      if (url.pathname.endsWith("/flushes"))
        return json({ flushId: "f", cursor: seq, trigger: "manual", created: true }, 202);
      return json({ error: { code: "not_found", message: url.pathname } }, 404);
    },
  };
}

/**
 * A real pi session with everything older than its last 3 user turns flushed and older closed chains
 * compressed, and a client that has pulled and applied that state.
 */
export async function condensedReplay(
  file: string,
  onEvent?: (e: ClientEvent) => void,
): Promise<{ client: CondenseClient; messages: AgentMessage[] }> {
  const raw = readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" }).messages;
  const fixture = buildCondensedState(raw, { keepLastUserTurns: 3, settings });
  // With a spool file, as the pi extension runs it (its appends happen between turns).
  const spoolPath = join(mkdtempSync(join(tmpdir(), "condense-bench-spool-")), "bench.condense-spool.jsonl");
  const client = createCondenseClient({
    sessionId: "bench",
    host: memoryHost(deltaOf(fixture.state)),
    settings,
    sse: false,
    spoolPath,
    ...(onEvent ? { onEvent } : {}),
  });
  await client.sync();
  client.applyPending();
  return { client, messages: fixture.messages };
}

export interface AssistantTurn {
  message: AgentMessage;
  /** 0-based index among the session's assistant messages. */
  assistantIndex: number;
  /** The tool results that answer it. */
  toolResults: AgentMessage[];
  /** The conversation up to and including those results. */
  branch: () => AgentMessage[];
  /** What pi's context hook hands over for the next call: a fresh clone of the branch. */
  cloneContext: () => AgentMessage[];
}

/** Every assistant turn of the session, in order. */
export function* assistantTurns(messages: AgentMessage[]): Generator<AssistantTurn> {
  let assistantIndex = -1;
  for (let i = 0; i < messages.length; i++) {
    const message = messages[i]!;
    if (!isAssistant(message)) continue;
    assistantIndex++;
    let end = i + 1;
    while (end < messages.length && isToolResult(messages[end])) end++;
    const toolResults = messages.slice(i + 1, end);
    yield {
      message,
      assistantIndex,
      toolResults,
      branch: () => messages.slice(0, end),
      cloneContext: () => structuredClone(messages.slice(0, end)) as AgentMessage[],
    };
  }
}

/** Lets the client's between-turn sends run. */
export const tick = () => new Promise<void>((r) => setImmediate(r));
