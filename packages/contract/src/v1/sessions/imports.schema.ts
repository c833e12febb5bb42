/**
 * POST /v1/sessions/{sessionId}/imports: the state another condenser left in the session (today
 * pi-condense's session entries, read by the pi extension), so the session continues with its refs,
 * summaries and chains instead of being summarized again.
 */
import { z } from "@hono/zod-openapi";
import { Identifier, StorableRecord, StorableText, Timestamp } from "../common.schema.ts";

const Ref = z.object({
  shortId: Identifier(600).describe(
    "The short ref (`tN`) the summary cites; the tool-call id itself for pi-condense's legacy summaries.",
  ),
  toolCallId: Identifier(512).describe("The tool-call id it names."),
  resultTimestamp: Timestamp.optional().describe(
    "The result timestamp of that occurrence (epoch ms); absent for a legacy bare id.",
  ),
});
const TRef = z.string().regex(/^t\d+$/, "must be a short ref tN");
const Count = z.number().finite().min(0);

export const ImportedRecord = z.object({
  key: Identifier(600).openapi({ description: "Occurrence key `id@resultTimestamp` (bare id for legacy records)." }),
  toolCallId: Identifier(512).describe("The provider's tool-call id."),
  toolName: Identifier(200).describe("The tool's name."),
  args: StorableRecord.describe("The call's arguments (JSON object)."),
  resultText: StorableText.describe("The output; empty when the body is kept out of line (see stored and storedBody)."),
  isError: z.boolean().describe("Whether the tool reported an error."),
  turnIndex: z
    .number()
    .int()
    .min(-1)
    .describe("The assistant turn of the call; -1 for a record backfilled by chain compression."),
  timestamp: Count.describe("The batch's timestamp (epoch ms); 0 when pi-condense recorded none."),
  resultTimestamp: Timestamp.optional().describe(
    "The result's timestamp (epoch ms), part of the occurrence key; absent for legacy records.",
  ),
  shortRef: TRef.optional().describe(
    "The short ref (`tN`) summaries cite; absent for an oversized (stored) record, which is stubbed with its raw id. Imported refs are kept; new refs continue after the highest.",
  ),
  contentHash: z.string().max(200).optional().describe("Hash of the output, for deduplication."),
  stored: z
    .object({
      bytes: z.number().int().min(0).describe("Size of the full output in bytes."),
      preview: StorableText.describe("The first lines of the output, shown in place of the body."),
    })
    .optional()
    .describe(
      "Present when the output is kept out of line (a pi-condense spill): its size and a preview; the body itself goes in storedBody.",
    ),
  storedBody: StorableText.optional().openapi({
    description: "Full body of a record kept out of line (a pi-condense spill).",
  }),
  summaryId: Identifier(200).optional().describe("The id of the imported summary that covers this call, if any."),
  backfilled: z
    .boolean()
    .optional()
    .describe("true for a record pi-condense filled in by chain compression rather than a flush."),
});

export const ImportedSummary = z.object({
  id: Identifier(200).describe(
    "Id of the summary, derived from the occurrences it covers (`pc_…` for pi-condense's), so the same summary message always gets the same id and is never delivered again.",
  ),
  text: StorableText.describe("The summary text, as it already stands in the branch."),
  refs: z.array(Ref).max(10_000).describe("The short refs the summary cites, each naming one call."),
  coverage: z.array(Identifier(600)).max(10_000).describe("Occurrence keys of the calls the summary covers."),
  toolNames: z.array(Identifier(200)).max(10_000).describe("The tools whose outputs it summarizes."),
  turnIndex: z.number().int().min(-1).describe("The assistant turn of the summarized batch; -1 when unknown."),
  timestamp: Count.describe("The batch's timestamp (epoch ms); 0 when unknown."),
});

export const ImportedChain = z.object({
  startUserTimestamp: Timestamp.describe(
    "Timestamp of the user message that opens the chain (its identity; the key of blockIds in the response).",
  ),
  finalAssistantTimestamp: Timestamp.nullable().describe(
    "Timestamp of the assistant message that closes it; null when open.",
  ),
  droppedToolCallIds: z.array(Identifier(512)).max(10_000).describe("Tool-call ids the render drops inside the chain."),
  droppedOccurrenceKeys: z
    .array(Identifier(600))
    .max(10_000)
    .optional()
    .describe(
      "Occurrence keys of the dropped calls; the block's body is built from the summaries covering them (droppedToolCallIds when absent).",
    ),
  protectedToolCallIds: z
    .array(Identifier(512))
    .max(10_000)
    .optional()
    .describe(
      "Calls inside the chain whose outputs the block keeps in full (protected tools and paths); none when absent.",
    ),
  toolRefs: z.array(TRef).max(10_000).describe("Short refs of the chain's calls, for recovery."),
  compressedAt: Count.describe("When the chain was compressed (epoch ms)."),
  rangeSummaryText: StorableText.optional().describe(
    "The block's own body (a fused or deterministic range summary); when absent the block joins the summaries covering its dropped calls.",
  ),
  bodySource: z
    .enum(["llm", "concat", "deterministic"])
    .optional()
    .describe(
      "Where the body came from: `llm` (a fused range summary), `concat` (the covering summaries joined), `deterministic` (built from the records without a model).",
    ),
});

const Frontier = z.object({
  lastAttemptedToolCallId: Identifier(512).describe(
    "The last tool call the latest flush attempted (where the next flush starts).",
  ),
  lastAttemptedToolName: z.string().max(200).describe("That call's tool name; empty when unknown."),
  lastAttemptedTurnIndex: z.number().int().min(-1).describe("That call's assistant turn; -1 when unknown."),
  lastAttemptedTimestamp: Count.describe("That call's batch timestamp (epoch ms); 0 when unknown."),
  attemptedBatchCount: Count.describe("Batches the latest flush processed."),
  attemptedToolCallCount: Count.describe("Tool calls the latest flush attempted."),
  rawCharCount: Count.describe("Characters of the outputs the latest flush summarized."),
  summaryCharCount: Count.describe("Characters of the summaries it wrote."),
  outcome: z
    .enum(["summarized", "skipped-oversized", "skipped-deduped", "skipped-trivial", "empty", "error"])
    .describe("How the latest flush ended."),
});

const Stats = z.object({
  totalInputTokens: Count.describe("Summarizer input tokens so far."),
  totalOutputTokens: Count.describe("Summarizer output tokens so far."),
  totalCost: Count.describe("Summarizer cost so far (USD)."),
  callCount: Count.describe("Summarizer calls so far."),
  chainsCompressed: Count.describe("Chains compressed so far; ignored: the service counts the imported chains itself."),
  rangesSummarized: Count.describe("Chain ranges summarized by a model (fused) so far."),
});

export const SessionImportBody = z
  .object({
    importId: Identifier(200).openapi({
      description: "Derived from the imported entries: the same import twice is one import.",
    }),
    source: z
      .enum(["pi-condense"])
      .describe("The condenser that left the state; named in the import's flush-metrics row."),
    records: z.array(ImportedRecord).max(50_000).describe("Tool-call records, occurrence-keyed (up to 50000)."),
    summaries: z.array(ImportedSummary).max(50_000).describe("Summaries already in the branch (up to 50000)."),
    aliases: z
      .array(
        z.object({
          key: Identifier(600).describe("The duplicate call's occurrence key."),
          originalKey: Identifier(600).describe(
            "The key of the record whose content it repeats (the alias shares its ref).",
          ),
        }),
      )
      .max(50_000)
      .describe("Dedup aliases: a call whose output repeats another's (up to 50000)."),
    chains: z
      .array(ImportedChain)
      .max(10_000)
      .describe("Compressed chains, in order; each is issued a new block id (up to 10000)."),
    frontier: Frontier.nullable().describe(
      "The last flushed call and its counters; null when the condenser never flushed.",
    ),
    stats: Stats.nullable().describe(
      "Summarizer usage so far, added to the session's stats; null when none was recorded.",
    ),
  })
  .openapi("SessionImport", {
    example: {
      importId: "pc-5f0c2a9e41d7",
      source: "pi-condense",
      records: [
        {
          key: "toolu_01A@1718000000000",
          toolCallId: "toolu_01A",
          toolName: "read",
          args: { path: "src/app.ts" },
          resultText: "export const app = new Hono();",
          isError: false,
          turnIndex: 3,
          timestamp: 1718000000100,
          resultTimestamp: 1718000000000,
          shortRef: "t1",
          summaryId: "pc_3a1f0b7c9d2e4f6a8b0c1d2e",
        },
      ],
      summaries: [
        {
          id: "pc_3a1f0b7c9d2e4f6a8b0c1d2e",
          text: "t1: src/app.ts creates the Hono app.",
          refs: [{ shortId: "t1", toolCallId: "toolu_01A", resultTimestamp: 1718000000000 }],
          coverage: ["toolu_01A@1718000000000"],
          toolNames: ["read"],
          turnIndex: 3,
          timestamp: 1718000000100,
        },
      ],
      aliases: [],
      chains: [],
      frontier: {
        lastAttemptedToolCallId: "toolu_01A",
        lastAttemptedToolName: "read",
        lastAttemptedTurnIndex: 3,
        lastAttemptedTimestamp: 1718000000100,
        attemptedBatchCount: 1,
        attemptedToolCallCount: 1,
        rawCharCount: 30,
        summaryCharCount: 36,
        outcome: "summarized",
      },
      stats: {
        totalInputTokens: 1200,
        totalOutputTokens: 80,
        totalCost: 0.0048,
        callCount: 1,
        chainsCompressed: 0,
        rangesSummarized: 0,
      },
    },
  });

export const SessionImportResult = z
  .object({
    status: z
      .enum(["imported", "already-imported"])
      .describe("`imported`, or `already-imported` when this importId was imported before (nothing changed)."),
    version: z
      .number()
      .int()
      .describe("The session's state version after the import (the earlier import's version when already imported)."),
    blockIds: z
      .record(z.string(), z.string())
      .openapi({ description: "startUserTimestamp -> the block id issued to each imported chain." }),
  })
  .openapi("SessionImportResult");
