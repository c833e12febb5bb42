/**
 * A local OpenAI-compatible chat-completions server for the worker bench: every request is answered
 * after a fixed delay with a short SSE stream (role chunk, text chunks, finish, usage, [DONE]), so the
 * real provider client runs end to end. The answer labels each call of the batch with `[[N:tool]]`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface FakeLlm { baseUrl: string; requests: number; close(): Promise<void> }

const chunk = (delta: Record<string, unknown>, finish: string | null) =>
  `data: ${JSON.stringify({ id: "bench", object: "chat.completion.chunk", created: 0, model: "bench", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

export async function startFakeLlm(delayMs: number): Promise<FakeLlm> {
  const state = { requests: 0 };
  const server: Server = createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => { body += d.toString(); });
    req.on("end", () => {
      state.requests++;
      // Label as many calls as the prompt numbers ("[[1:bash]]"-style positions are what the summarizer asks for).
      const calls = Math.max(1, (body.match(/\[\[\d+:/g) ?? []).length || 2);
      const text = Array.from({ length: Math.min(calls, 8) }, (_, i) => `- [[${i + 1}:bash]] ran step ${i + 1}; exit 0`).join("\n");
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
        res.write(chunk({ role: "assistant", content: "" }, null));
        res.write(chunk({ content: text }, null));
        res.write(chunk({}, "stop"));
        res.write(`data: ${JSON.stringify({ id: "bench", object: "chat.completion.chunk", created: 0, model: "bench", choices: [], usage: { prompt_tokens: 400, completion_tokens: 30, total_tokens: 430 } })}\n\n`);
        res.end("data: [DONE]\n\n");
      }, delayMs);
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    get requests() { return state.requests; },
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}
