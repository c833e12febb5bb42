/**
 * Tool-call records for the acceptance scenarios; their messages come from `@condense/test-support/messages`
 * (the spec's notation: A, R, U, F).
 */
import { toolNameOf } from "@condense/test-support/messages";
import type { ToolCallRecord } from "../../src/state-types.ts";
import { occKey } from "../../src/keys.ts";

export function record(
  id: string,
  resultTimestamp: number | undefined,
  extra: Partial<ToolCallRecord> = {},
): ToolCallRecord {
  return {
    key: occKey(id, resultTimestamp),
    toolCallId: id,
    toolName: toolNameOf(id),
    args: {},
    resultText: `output of ${id}`,
    isError: false,
    turnIndex: 0,
    timestamp: resultTimestamp ?? 0,
    ...(resultTimestamp !== undefined ? { resultTimestamp } : {}),
    ...extra,
  };
}
