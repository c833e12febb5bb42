/** GET /v1/sessions/{sessionId}/state?since=<version>: core's StateDelta wire format. */
import { z } from "@hono/zod-openapi";

export const StateQuery = z.object({
  since: z.coerce
    .number()
    .int()
    .min(0)
    .max(Number.MAX_SAFE_INTEGER)
    .default(0)
    .openapi({
      param: { name: "since", in: "query" },
      description: "The version the client already has; 0 asks for a full snapshot.",
      example: 0,
    }),
});

const ToolCallRecord = z
  .looseObject({
    key: z.string().describe("Occurrence key: `toolCallId@resultTimestamp` (or the bare id for legacy records)."),
    toolCallId: z.string().describe("The provider's tool-call id."),
    toolName: z.string().describe("The tool's name."),
    args: z.record(z.string(), z.unknown()).describe("The call's arguments."),
    resultText: z.string().describe("The output; empty when it is stored out of line (see stored)."),
    isError: z.boolean().describe("Whether the tool reported an error."),
    turnIndex: z.number().describe("The assistant turn of the call."),
    timestamp: z.number().describe("The batch's timestamp (epoch ms)."),
    resultTimestamp: z.number().optional().describe("The result's timestamp (epoch ms), part of the occurrence key."),
    shortRef: z
      .string()
      .optional()
      .describe("The short ref (`tN`) the summary cites; the model recovers the original with it."),
    contentHash: z.string().optional().describe("Hash of the output, for deduplication."),
    stored: z
      .object({
        bytes: z.number().describe("Size of the full output in bytes."),
        preview: z.string().describe("The first lines of the output, shown in place of the body."),
      })
      .optional()
      .describe(
        "Present when the output is stored out of line: its size and a preview (recover the body with the query route).",
      ),
    summaryId: z.string().optional().describe("The summary that covers this call."),
    backfilled: z
      .boolean()
      .optional()
      .describe("true for a record filled in by chain compression rather than a flush."),
  })
  .openapi("ToolCallRecord");

const SummaryEntry = z
  .looseObject({
    id: z.string().describe("Deterministic id of the summary (derived from the calls it covers)."),
    text: z.string().describe("The summary text the render puts in place of the outputs."),
    refs: z
      .array(
        z.object({
          shortId: z.string().describe("The short ref (`tN`)."),
          toolCallId: z.string().describe("The tool-call id it names."),
          resultTimestamp: z.number().optional().describe("The result timestamp of that occurrence."),
        }),
      )
      .describe("The short refs the summary cites, each naming one call."),
    coverage: z.array(z.string()).describe("Occurrence keys of the calls the summary covers."),
    toolNames: z.array(z.string()).describe("The tools whose outputs it summarizes."),
    turnIndex: z.number().describe("The assistant turn of the summarized batch."),
    timestamp: z.number().describe("The batch's timestamp (epoch ms)."),
  })
  .openapi("SummaryEntry");

const ChainEntry = z
  .looseObject({
    blockId: z.string().describe("The chain block's id (`bN`)."),
    startUserTimestamp: z.number().describe("Timestamp of the user message that opens the chain."),
    finalAssistantTimestamp: z
      .number()
      .nullable()
      .describe("Timestamp of the assistant message that closes it; null when open."),
    droppedToolCallIds: z.array(z.string()).describe("Tool-call ids the render drops inside the chain."),
    toolRefs: z.array(z.string()).describe("Short refs of the chain's calls, for recovery."),
    compressedAt: z.number().describe("When the chain was compressed (epoch ms)."),
  })
  .openapi("ChainEntry");

export const StateDeltaSchema = z
  .object({
    format: z.literal("condense.state-delta/1").describe("Wire format id of the delta."),
    fromVersion: z.number().int().describe("The version the delta starts from (the request's since)."),
    toVersion: z.number().int().describe("The session's version after applying it; send it as since next time."),
    records: z.array(ToolCallRecord).describe("Tool-call records written after fromVersion."),
    summaries: z.array(SummaryEntry).describe("Summaries written after fromVersion."),
    aliases: z
      .array(
        z.object({
          key: z.string().describe("The duplicate call's occurrence key."),
          originalKey: z.string().describe("The key of the record whose content it repeats."),
        }),
      )
      .describe("Dedup aliases written after fromVersion: a call whose output repeats another's."),
    chains: z.array(ChainEntry).describe("Chain compressions written after fromVersion."),
    frontier: z
      .looseObject({})
      .nullable()
      .optional()
      .describe("The last flushed call and counters (where the next flush starts); null before the first flush."),
    stats: z
      .looseObject({})
      .optional()
      .describe("Summarizer usage of the session (cost, tokens, calls), when it changed."),
    settled: z
      .array(z.string())
      .optional()
      .describe("Occurrence keys settled without a record or alias (skipped): the client must not capture them again."),
  })
  .openapi("StateDelta");
