/** POST /v1/sessions/{sessionId}/bodies: one part of a result body that travels out of line. */
import { z } from "@hono/zod-openapi";
import { Identifier, StorableText } from "../common.schema.ts";

/** Characters per part the API accepts; even fully escaped JSON stays under the default body limit. */
export const MAX_BODY_PART_CHARS = 1024 * 1024;

export const BodyPartBody = z
  .object({
    key: Identifier(600).openapi({
      description: "Occurrence key of the call whose result this is (`toolCallId@resultTimestamp`).",
    }),
    part: z.number().int().min(0).max(100_000).openapi({ description: "Position of this part, from 0." }),
    start: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31 - 1)
      .openapi({ description: "Offset of the part's first character in the whole body (UTF-16 code units)." }),
    text: StorableText.refine(
      (t) => t.length <= MAX_BODY_PART_CHARS,
      `a part holds at most ${MAX_BODY_PART_CHARS} characters`,
    ).openapi({ description: "The part's text; parts never split a surrogate pair." }),
  })
  .openapi("BodyPartRequest", {
    example: { key: "toolu_01A@1718000000000", part: 0, start: 0, text: "export const app = new Hono();" },
  });

export const BodyPartResponse = z
  .object({
    key: z.string().describe("The request's occurrence key, echoed."),
    part: z.number().int().describe("The request's part number, echoed."),
    /** `stored`, or `unchanged` for a retried upload of the same part. */
    result: z
      .enum(["stored", "unchanged"])
      .describe(
        "`stored` when this request wrote the part; `unchanged` when the same text at the same offset was already stored (a retry). A different text or offset for a stored part is a 409.",
      ),
  })
  .openapi("BodyPartResponse");
