/**
 * Captured batches for tests and benches: what the client's capture sends for a turn, here one `bash` call
 * (call id `c<i>`, turn timestamp 1000 + i, result timestamp 2000 + i).
 */
import type { CapturedBatch } from "@condense/core";

/** Turn `i`'s batch of one successful `bash` call returning `resultText`. */
export function oneCallBatch(i: number, resultText: string, args: Record<string, unknown> = {}): CapturedBatch {
  return {
    turnIndex: i,
    timestamp: 1000 + i,
    assistantText: "",
    toolCalls: [{ toolCallId: `c${i}`, toolName: "bash", args, resultText, isError: false, resultTimestamp: 2000 + i }],
  };
}
