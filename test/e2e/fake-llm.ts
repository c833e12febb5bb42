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
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface ScriptedCall { name: string; args: Record<string, unknown> }
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
export interface ChatBody { model: string; messages: ChatMessage[]; tools?: unknown[]; stream?: boolean }

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
}

export interface FakeLlm {
  url: string;
  baseUrl: string;
  requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface FakeLlmOptions {
  scenarios: Record<string, Scenario>;
  /** Delay before answering a summarizer (or fusion) request. */
  summarizerDelayMs?: number;
}

export const SCENARIO_PREFIX = "SCENARIO ";

export function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content.map((p) => (p && typeof p === "object" && typeof (p as { text?: unknown }).text === "string" ? (p as { text: string }).text : "")).join("\n");
  }
  return "";
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
  while ((m = re.exec(body))) bullets.push(`- [[${m[1]}:${m[2]}]] ${m[2]} ${m[3] === "OK" ? "succeeded" : "failed"}; output starts with "${m[4]!.slice(0, 40)}"`);
  return bullets.length > 0 ? bullets.join("\n") : "- nothing worth keeping";
}

function fuse(prompt: string): string {
  const inner = prompt.slice(prompt.indexOf("<sub-task-summaries>") + "<sub-task-summaries>".length, prompt.indexOf("</sub-task-summaries>"));
  const refs = [...new Set(inner.match(/`t\d+`/g) ?? [])];
  return `Sub-task: ran ${refs.length} command(s) ${refs.join(" ")} and inspected their output.`;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export async function startFakeLlm(options: FakeLlmOptions): Promise<FakeLlm> {
  const requests: RecordedRequest[] = [];
  let seq = 0;
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
    if (kind === "summarizer" || kind === "fusion") await new Promise((r) => setTimeout(r, options.summarizerDelayMs ?? 0));
    const id = `chatcmpl-fake-${++seq}`;
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const chunk = (delta: unknown, finish: string | null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
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
        res.write(chunk({ tool_calls: [{ index, id: `call_${index + 1}`, type: "function", function: { name: c.name, arguments: args } }] }, null));
      });
      res.write(chunk({}, "tool_calls"));
    }
    res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: body.model, choices: [], usage: { prompt_tokens: promptTokens, completion_tokens: completion, total_tokens: promptTokens + completion } })}\n\n`);
    res.write("data: [DONE]\n\n");
    res.end();
    requests.push({ kind, body, scenario, step, receivedAt, respondedAt: Date.now(), reply, promptTokens });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    requests,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
