/**
 * The OpenAI chat-completions stream as the fakes write it: `data:` chunks of `chat.completion.chunk`,
 * a usage chunk with no choices, then `[DONE]`; and the body readers the fakes share.
 */
import type { IncomingMessage } from "node:http";

export function openaiChunk(model: string, delta: unknown, finish: string | null, id = "chatcmpl-fake"): string {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

export function openaiUsage(model: string, input: number, output: number, id = "chatcmpl-fake"): string {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model, choices: [], usage: { prompt_tokens: input, completion_tokens: output, total_tokens: input + output } })}\n\n`;
}

export const OPENAI_DONE = "data: [DONE]\n\n";

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}
