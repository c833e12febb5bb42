/** Batches and configs shared by the summarizer suites. */
import type { CapturedBatch, CapturedToolCall } from "@condense/core";
import type { SummarizerConfigInput } from "../../src/config.ts";
import type { SummarizerLogger } from "../../src/logger.ts";

export function call(
  over: Partial<CapturedToolCall> & Pick<CapturedToolCall, "toolName" | "resultText">,
): CapturedToolCall {
  return {
    toolCallId: `${over.toolName}_${Math.abs(hash(over.resultText))}`,
    args: {},
    isError: false,
    resultTimestamp: 1000,
    ...over,
  };
}

function hash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0;
  return h;
}

export function sampleBatch(tag = "a"): CapturedBatch {
  return {
    turnIndex: 3,
    timestamp: 5000,
    assistantText: "Let me check the failing test.",
    toolCalls: [
      call({
        toolName: "read",
        args: { path: `src/${tag}/config.ts` },
        resultText: `export const config = {\n  port: 8080,\n  host: "localhost",\n};\n${"// filler line for size\n".repeat(60)}`,
      }),
      call({
        toolName: "bash",
        args: { command: "npm test" },
        isError: true,
        resultText: [
          "> vitest run",
          "",
          " FAIL  test/parse.test.ts > parses headers",
          "AssertionError: expected 'a' to be 'b'",
          ...Array.from({ length: 40 }, (_, i) => ` ✓ test/ok-${i}.test.ts`),
          "Tests  1 failed | 40 passed (41)",
          "Command exited with code 1",
        ].join("\n"),
      }),
    ],
  };
}

export const GOOD_SUMMARY =
  "- [[1:read]] Read `src/a/config.ts`: port 8080, host localhost.\n- [[2:bash]] `npm test` failed: test/parse.test.ts > parses headers, AssertionError: expected 'a' to be 'b'; exit 1.";

/** A custom model entry pointing at the fake server. Prices in USD per million tokens. */
export function fakeModel(
  baseUrl: string,
  id: string,
  api: "openai-completions" | "anthropic-messages" = "openai-completions",
) {
  return {
    provider: api === "openai-completions" ? "fake-openai" : "fake-anthropic",
    id,
    api,
    baseUrl,
    apiKey: "test-key",
    cost: { input: 3, output: 15, cacheRead: 0, cacheWrite: 0 },
    maxTokens: 4096,
  } as const;
}

/** Small timeouts and delays, so failure scenarios finish in well under a second each. */
export function fastConfig(over: SummarizerConfigInput = {}): SummarizerConfigInput {
  return {
    summarizerIdleTimeoutMs: 2000,
    summarizerMaxTimeoutMs: 5000,
    retries: 1,
    retryMinDelayMs: 10,
    retryMaxDelayMs: 50,
    breakerCooldownMs: 60_000,
    ...over,
  };
}

export interface CapturedLog {
  level: "info" | "warn" | "error";
  obj: Record<string, unknown>;
  msg: string;
}

export function memoryLogger(): SummarizerLogger & { lines: CapturedLog[] } {
  const lines: CapturedLog[] = [];
  return {
    lines,
    info: (obj, msg) => void lines.push({ level: "info", obj, msg }),
    warn: (obj, msg) => void lines.push({ level: "warn", obj, msg }),
    error: (obj, msg) => void lines.push({ level: "error", obj, msg }),
  };
}
