/**
 * A fake OpenAI-compatible LLM for the end-to-end suite: `POST /v1/chat/completions`, streamed
 * (SSE chunks, tool calls, usage), speaking the wire protocol pi's provider code and the summarizer
 * use, so every real client line runs. It serves two kinds of caller:
 * - the agent (requests with `tools`): answers come from a script keyed by the scenario marker in the
 *   latest scenario user message and by how many assistant turns follow it;
 * - the summarizer (no tools; a `<tool-call-batch>` or `<sub-task-summaries>` prompt): a short
 *   summary that keeps every `[[N:tool]]` label, after a configurable delay, so a test can show the
 *   agent never waits on it.
 * Every request body is recorded with its arrival and completion time.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { OPENAI_DONE, openaiChunk, openaiUsage, readBody } from "./openai-stream.ts";

export interface ScriptedCall {
  name: string;
  args: Record<string, unknown>;
}
/** One agent response: tool calls (ids are assigned per response: call_1, call_2, ...) or a text reply. */
export type ScriptedReply = { calls: ScriptedCall[] } | { text: string };
/** Produces the reply for step `step` of a scenario; `body` lets a step read the conversation (e.g. pick a ref). */
export type Scenario = (step: number, body: ChatBody) => ScriptedReply;

export interface ChatMessage {
  role: string;
  content?: unknown;
  tool_calls?: { id: string; type: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}
export interface ChatBody {
  model: string;
  messages: ChatMessage[];
  tools?: unknown[];
  stream?: boolean;
}

export interface RecordedRequest {
  kind: "agent" | "summarizer" | "fusion" | "other";
  body: ChatBody;
  scenario: string | null;
  step: number;
  receivedAt: number;
  respondedAt: number;
  reply?: ScriptedReply;
  /** The prompt_tokens the fake reported. */
  promptTokens: number;
  /** The Authorization header the caller sent (the key pi resolved from models.json). */
  authorization?: string;
}

export interface FakeLlm {
  url: string;
  baseUrl: string;
  requests: RecordedRequest[];
  /** Summarizer (and fusion) requests received and not answered yet: a flush is in flight. */
  readonly summarizerInFlight: number;
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  scenarios: Record<string, Scenario>;
  /** Delay before answering a summarizer (or fusion) request. */
  summarizerDelayMs?: number;
  /** Delay before answering an agent request (a provider's latency; bench:pi uses 50 ms). */
  agentDelayMs?: number;
}

export const SCENARIO_PREFIX = "SCENARIO ";

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((p) =>
        p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string"
          ? (p as { text: string }).text
          : "",
      )
      .join("\n");
  }
  return "";
}

/** Summarizer config (worker env, CONDENSE_SUMMARIZER_CONFIG) that sends summaries to the fake LLM. */
export function fakeSummarizerConfig(llm: Pick<FakeLlm, "baseUrl">): string {
  return JSON.stringify({
    summarizerModel: "fake/fake-model",
    retries: 0,
    summarizerIdleTimeoutMs: 20_000,
    customModels: [
      { provider: "fake", id: "fake-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "fake-key" },
    ],
  });
}

/** The scenario name of the newest scenario user message and the number of assistant turns after it. */
export function scenarioStep(messages: ChatMessage[]): { scenario: string | null; step: number } {
  for (let i = messages.length - 1; i >= 0; i--) {
    const m = messages[i]!;
    if (m.role !== "user") continue;
    const text = textOf(m.content).trimStart();
    if (!text.startsWith(SCENARIO_PREFIX)) continue;
    const scenario = text.slice(SCENARIO_PREFIX.length).split(/[\s:]/)[0] ?? null;
    let step = 0;
    for (let j = i + 1; j < messages.length; j++) if (messages[j]!.role === "assistant") step++;
    return { scenario, step };
  }
  return { scenario: null, step: 0 };
}

function summarizeBatch(prompt: string): string {
  const body = prompt.slice(prompt.indexOf("<tool-call-batch>"));
  const bullets: string[] = [];
  const re = /^\[\[(\d+):([^\]\s]+)\]\] Tool: [^\n]*\nResult \((OK|ERROR)\): ([^\n]*)/gm;
  let m: RegExpExecArray | null;
  while ((m = re.exec(body)))
    bullets.push(
      `- [[${m[1]}:${m[2]}]] ${m[2]} ${m[3] === "OK" ? "succeeded" : "failed"}; output starts with "${m[4]!.slice(0, 40)}"`,
    );
  return bullets.length > 0 ? bullets.join("\n") : "- nothing worth keeping";
}

function fuse(prompt: string): string {
  const inner = prompt.slice(
    prompt.indexOf("<sub-task-summaries>") + "<sub-task-summaries>".length,
    prompt.indexOf("</sub-task-summaries>"),
  );
  const refs = [...new Set(inner.match(/`t\d+`/g) ?? [])];
  return `Sub-task: ran ${refs.length} command(s) ${refs.join(" ")} and inspected their output.`;
}

export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const requests: RecordedRequest[] = [];
  let seq = 0;
  let summarizerInFlight = 0;
  const server: Server = createServer(async (req, res) => {
    if (req.method !== "POST" || !req.url?.endsWith("/chat/completions")) {
      res.writeHead(404).end();
      return;
    }
    const receivedAt = Date.now();
    const body = JSON.parse(await readBody(req)) as ChatBody;
    const promptTokens = Math.ceil(JSON.stringify(body.messages).length / 4);
    const hasTools = Array.isArray(body.tools) && body.tools.length > 0;
    const lastText = textOf(body.messages[body.messages.length - 1]?.content);
    let kind: RecordedRequest["kind"] = "other";
    let reply: ScriptedReply;
    const { scenario, step } = scenarioStep(body.messages);
    if (hasTools) {
      kind = "agent";
      const script = scenario ? options.scenarios[scenario] : undefined;
      reply = script ? script(step, body) : { text: `no script for scenario ${scenario ?? "(none)"}` };
    } else if (lastText.includes("<tool-call-batch>")) {
      kind = "summarizer";
      reply = { text: summarizeBatch(lastText) };
    } else if (lastText.includes("<sub-task-summaries>")) {
      kind = "fusion";
      reply = { text: fuse(lastText) };
    } else {
      reply = { text: "ok" };
    }
    if (kind === "agent" && options.agentDelayMs) await new Promise((r) => setTimeout(r, options.agentDelayMs));
    if (kind === "summarizer" || kind === "fusion") {
      summarizerInFlight++;
      try {
        await new Promise((r) => setTimeout(r, options.summarizerDelayMs ?? 0));
      } finally {
        summarizerInFlight--;
      }
    }
    const id = `chatcmpl-fake-${++seq}`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const chunk = (delta: unknown, finish: string | null) => openaiChunk(body.model, delta, finish, id);
    let completion = 0;
    if ("text" in reply) {
      res.write(chunk({ role: "assistant", content: "" }, null));
      res.write(chunk({ content: reply.text }, null));
      completion = Math.ceil(reply.text.length / 4);
      res.write(chunk({}, "stop"));
    } else {
      res.write(chunk({ role: "assistant", content: null }, null));
      reply.calls.forEach((c, index) => {
        const args = JSON.stringify(c.args);
        completion += Math.ceil(args.length / 4);
        res.write(
          chunk(
            {
              tool_calls: [
                { index, id: `call_${index + 1}`, type: "function", function: { name: c.name, arguments: args } },
              ],
            },
            null,
          ),
        );
      });
      res.write(chunk({}, "tool_calls"));
    }
    res.write(openaiUsage(body.model, promptTokens, completion, id));
    res.write(OPENAI_DONE);
    res.end();
    requests.push({
      kind,
      body,
      scenario,
      step,
      receivedAt,
      respondedAt: Date.now(),
      reply,
      promptTokens,
      ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    get summarizerInFlight() {
      return summarizerInFlight;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
