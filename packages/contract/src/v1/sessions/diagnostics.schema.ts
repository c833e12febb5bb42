/** POST /v1/sessions/{sessionId}/diagnostics: render diagnostics a client reports (CAP-DIAG). */
import { z } from "@hono/zod-openapi";
import { StorableText } from "../common.schema.ts";

export const DiagnosticKindSchema = z.enum([
  "unresolved-range",
  "range-id-mismatch",
  "orphan-sweep",
  "backfill-empty",
  "malformed-message",
]);

export const DiagnosticsBody = z
  .object({
    diagnostics: z
      .array(
        z.object({
          kind: DiagnosticKindSchema.describe(
            "What the render found: `unresolved-range` (a chain's range not found in the branch, or overlapping another), `range-id-mismatch` (the range holds a different number of tool calls than the chain recorded), `orphan-sweep` (tool results without their call were dropped), `backfill-empty` (a chain with nothing to backfill; the worker reports it), `malformed-message` (a message the render could not read, passed through untouched).",
          ),
          dedupKey: z.string().min(1).max(300).openapi({ description: "Stored once per (session, kind, dedupKey)." }),
          detail: StorableText.refine((t) => t.length <= 2000, "at most 2000 characters")
            .default("")
            .describe(
              "Free text for operators (e.g. `blockId=b3 recorded=4 actual=3`), kept with the first report of the pair; never shown to the model. Up to 2000 characters; empty when omitted.",
            ),
        }),
      )
      .min(1)
      .max(500)
      .describe("The reports (1 to 500); a (kind, dedupKey) pair already stored for the session is ignored."),
  })
  .openapi("DiagnosticsRequest", {
    example: { diagnostics: [{ kind: "range-id-mismatch", dedupKey: "b3", detail: "blockId=b3 recorded=4 actual=3" }] },
  });

export const DiagnosticsResponse = z
  .object({
    /** Reports stored by this request (a repeat of a stored pair is not counted). */
    accepted: z
      .number()
      .int()
      .describe("Reports newly stored by this request (a pair stored earlier is not counted); always 0 on GET."),
    /** Every diagnostic stored for the session, per kind (the worker's backfill-empty included). */
    counts: z
      .record(z.string(), z.number())
      .describe(
        "Diagnostics stored for the session so far, per kind (the worker's `backfill-empty` included); a kind never reported is absent.",
      ),
  })
  .openapi("DiagnosticsResponse");
