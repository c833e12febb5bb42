/**
 * A local HTTP server that speaks two LLM wire protocols, so the real pi-ai client code runs in tests:
 * OpenAI chat completions (`POST /v1/chat/completions`, SSE `data:` chunks, a usage chunk, `[DONE]`)
 * and Anthropic messages (`POST /v1/messages`, SSE `event:` message_start ... message_stop).
 * Each request is answered by the current `script`, which picks a behaviour per request. (The agent-side
 * fake, which plays scripted agent turns, is fake-llm.ts.)
 */
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { OPENAI_DONE, openaiChunk, openaiUsage, readBody } from "./openai-stream.ts";

export type Behaviour =
  /** `delayMs`: the provider's latency before it answers (a bench's summarizer wait). */
  | { kind: "ok"; text: string; inputTokens?: number; outputTokens?: number; delayMs?: number }
  /** Headers sent, then silence until the client gives up. */
  | { kind: "stall" }
  /** A tiny chunk every `everyMs`, never finishing. */
  | { kind: "dribble"; everyMs: number }
  | { kind: "status"; status: number; retryAfter?: string; message?: string }
  | { kind: "empty" }
  | { kind: "truncated"; text: string }
  /** Stream starts, then the connection is cut mid-message. */
  | { kind: "reset"; text: string };

export interface RecordedRequest {
  api: "openai" | "anthropic";
  model: string;
  prompt: string;
  at: number;
  authorization: string | undefined;
  /** The parsed request body (model, messages, reasoning options, token caps...). */
  body: Record<string, unknown>;
}

export interface FakeProvider {
  url: string;
  /** OpenAI-compatible base URL (`.../v1`). */
  openaiBaseUrl: string;
  /** Anthropic-compatible base URL (the SDK appends `/v1/messages`). */
  anthropicBaseUrl: string;
  requests: RecordedRequest[];
  script: (req: RecordedRequest, n: number) => Behaviour;
  close(): Promise<void>;
}

const sse = (res: ServerResponse) => {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
  res.flushHeaders();
};

const anthropicEvent = (type: string, data: Record<string, unknown>) =>
  `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

function dribble(res: ServerResponse, everyMs: number, chunk: () => string): void {
  const timer = setInterval(() => res.write(chunk()), everyMs);
  res.on("close", () => clearInterval(timer));
}

function answerOpenAI(res: ServerResponse, model: string, b: Behaviour): void {
  const input = 120;
  switch (b.kind) {
    case "status":
      return void answerStatus(res, b, {
        error: { message: b.message ?? `fake status ${b.status}`, type: "fake_error" },
      });
    case "stall":
      sse(res);
      return;
    case "dribble":
      sse(res);
      res.write(openaiChunk(model, { role: "assistant", content: "" }, null));
      dribble(res, b.everyMs, () => openaiChunk(model, { content: "." }, null));
      return;
    case "reset":
      sse(res);
      res.write(openaiChunk(model, { role: "assistant", content: b.text }, null));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    default: {
      sse(res);
      const text = b.kind === "empty" ? "" : b.text;
      res.write(openaiChunk(model, { role: "assistant", content: "" }, null));
      for (const piece of text.match(/[\s\S]{1,40}/g) ?? []) res.write(openaiChunk(model, { content: piece }, null));
      res.write(openaiChunk(model, {}, b.kind === "truncated" ? "length" : "stop"));
      const output = b.kind === "ok" ? (b.outputTokens ?? Math.ceil(text.length / 4)) : Math.ceil(text.length / 4);
      res.write(openaiUsage(model, b.kind === "ok" ? (b.inputTokens ?? input) : input, output));
      res.end(OPENAI_DONE);
    }
  }
}

function answerAnthropic(res: ServerResponse, model: string, b: Behaviour): void {
  const start = (input: number) =>
    anthropicEvent("message_start", {
      message: {
        id: "msg_fake",
        type: "message",
        role: "assistant",
        model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: input, output_tokens: 1 },
      },
    });
  switch (b.kind) {
    case "status":
      return void answerStatus(res, b, {
        type: "error",
        error: { type: "fake_error", message: b.message ?? `fake status ${b.status}` },
      });
    case "stall":
      sse(res);
      return;
    case "dribble":
      sse(res);
      res.write(start(120));
      res.write(anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
      dribble(res, b.everyMs, () =>
        anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "." } }),
      );
      return;
    case "reset":
      sse(res);
      res.write(start(120));
      res.write(anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
      res.write(anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: b.text } }));
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    default: {
      sse(res);
      const text = b.kind === "empty" ? "" : b.text;
      res.write(start(b.kind === "ok" ? (b.inputTokens ?? 120) : 120));
      if (text) {
        res.write(anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }));
        for (const piece of text.match(/[\s\S]{1,40}/g) ?? [])
          res.write(anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: piece } }));
        res.write(anthropicEvent("content_block_stop", { index: 0 }));
      }
      const output = b.kind === "ok" ? (b.outputTokens ?? Math.ceil(text.length / 4)) : Math.ceil(text.length / 4);
      res.write(
        anthropicEvent("message_delta", {
          delta: { stop_reason: b.kind === "truncated" ? "max_tokens" : "end_turn", stop_sequence: null },
          usage: { output_tokens: output },
        }),
      );
      res.end(anthropicEvent("message_stop", {}));
    }
  }
}

function answerStatus(res: ServerResponse, b: Extract<Behaviour, { kind: "status" }>, body: unknown): void {
  res.writeHead(b.status, {
    "content-type": "application/json",
    ...(b.retryAfter !== undefined ? { "retry-after": b.retryAfter } : {}),
  });
  res.end(JSON.stringify(body));
}

function promptOf(body: { messages?: { content?: unknown }[] }): string {
  const c = body.messages?.[0]?.content;
  if (typeof c === "string") return c;
  if (Array.isArray(c)) return c.map((p: { text?: string }) => p.text ?? "").join("");
  return "";
}

export async function startFakeProvider(
  script: FakeProvider["script"] = () => ({ kind: "ok", text: "- [[1:bash]] ok" }),
): Promise<FakeProvider> {
  const fake = { requests: [] as RecordedRequest[], script } as FakeProvider;
  const server: Server = createServer(async (req, res) => {
    const api = req.url?.endsWith("/chat/completions") ? "openai" : req.url?.endsWith("/messages") ? "anthropic" : null;
    if (req.method !== "POST" || !api) {
      res.writeHead(404).end();
      return;
    }
    const body = JSON.parse(await readBody(req)) as { model: string; messages?: { content?: unknown }[] };
    const auth = req.headers.authorization ?? (req.headers["x-api-key"] as string | undefined);
    const recorded: RecordedRequest = {
      api,
      model: body.model,
      prompt: promptOf(body),
      at: Date.now(),
      authorization: auth,
      body,
    };
    fake.requests.push(recorded);
    const behaviour = fake.script(recorded, fake.requests.length);
    if (behaviour.kind === "ok" && behaviour.delayMs) await new Promise((r) => setTimeout(r, behaviour.delayMs));
    (api === "openai" ? answerOpenAI : answerAnthropic)(res, body.model, behaviour);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  fake.url = `http://127.0.0.1:${port}`;
  fake.openaiBaseUrl = `${fake.url}/v1`;
  fake.anthropicBaseUrl = fake.url;
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return fake;
}
