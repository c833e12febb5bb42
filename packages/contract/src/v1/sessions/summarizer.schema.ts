/**
 * PUT /v1/sessions/{sessionId}/summarizer: the model the session's agent hands the service so it can
 * summarize with the agent's own model (pi's model registry and auth). The key and headers are kept
 * in the service's memory only and never returned, stored or logged.
 */
import { z } from "@hono/zod-openapi";
import { Identifier, StorableText } from "../common.schema.ts";

const Headers = z
  .record(z.string().min(1).max(200), StorableText.pipe(z.string().max(8192)))
  .refine((h) => Object.keys(h).length <= 64, "at most 64 headers");

const Auth = z.discriminatedUnion("ok", [
  z.object({
    ok: z.literal(true).describe("true: the agent resolved the request auth (a key and/or headers, or none needed)."),
    apiKey: StorableText.pipe(z.string().max(16_384))
      .optional()
      .openapi({ description: "The provider key the agent resolved; omitted for a keyless endpoint." }),
    headers: Headers.optional().openapi({
      description: "Request headers the agent resolved with the key (model, provider and auth headers).",
    }),
  }),
  z.object({
    ok: z.literal(false).describe("false: the agent could not resolve a key for this model (see error)."),
    error: StorableText.pipe(z.string().max(2000)).openapi({
      description: "Why the agent could not resolve the key; every call to this model then fails as `auth`.",
    }),
  }),
]);

const Cost = z.object({
  input: z.number().nonnegative().describe("USD per million input tokens."),
  output: z.number().nonnegative().describe("USD per million output tokens."),
  cacheRead: z.number().nonnegative().describe("USD per million tokens read from the provider's prompt cache."),
  cacheWrite: z.number().nonnegative().describe("USD per million tokens written to the provider's prompt cache."),
});

export const HandedOffModelSchema = z
  .object({
    provider: Identifier(200).openapi({ description: "Provider id in the agent's registry, e.g. `anthropic`." }),
    id: Identifier(300).openapi({ description: "Model id, e.g. `claude-sonnet-4-5`." }),
    api: Identifier(100).openapi({
      description: "Wire protocol (pi-ai api id), e.g. `openai-completions`, `anthropic-messages`.",
    }),
    baseUrl: z
      .url()
      .max(2000)
      .openapi({ description: "The endpoint the agent calls (a seat-specific one when the agent's auth carries it)." }),
    name: StorableText.pipe(z.string().max(300))
      .optional()
      .describe("Display name from the agent's registry; the model id when omitted."),
    reasoning: z
      .boolean()
      .optional()
      .describe("Whether the model supports reasoning (thinking) levels; false when omitted."),
    input: z
      .array(z.enum(["text", "image"]))
      .max(2)
      .optional()
      .describe('Input kinds the model accepts; `["text"]` when omitted.'),
    contextWindow: z
      .number()
      .int()
      .positive()
      .optional()
      .describe("The model's context window in tokens; 128000 when omitted."),
    maxTokens: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        "The model's output-token limit; a summary asks for at most this many (and no more than the summarizer's own cap). 8192 when omitted.",
      ),
    cost: Cost.optional().openapi({ description: "USD per million tokens, for the summarizer's cost accounting." }),
    compat: z
      .record(z.string(), z.unknown())
      .optional()
      .openapi({ description: "Provider compatibility flags, as in pi's models.json." }),
    thinkingLevelMap: z
      .record(z.string(), z.unknown())
      .optional()
      .describe(
        "pi thinking levels mapped to this provider's values, as in pi's models.json (null marks a level unsupported; a missing level uses the provider default).",
      ),
    auth: Auth.describe(
      "The request auth the agent resolved for this model (`ok: true` with key and headers), or why it could not (`ok: false`). Kept in memory only, never returned, stored or logged.",
    ),
  })
  .openapi("HandedOffModel");

export const SummarizerHandOffBody = z
  .object({
    primary: HandedOffModelSchema.openapi({
      description: "The model that summarizes: summarizerModel resolved, or the session's model for `default`.",
    }),
    fallback: HandedOffModelSchema.nullable()
      .default(null)
      .openapi({ description: "Tried when the primary fails (CAP-SUM-9)." }),
    notices: z
      .array(StorableText.pipe(z.string().max(1000)))
      .max(10)
      .default([])
      .openapi({
        description:
          "What the agent decided while resolving (e.g. a model missing from its registry); shown in status.",
      }),
  })
  .openapi("SummarizerHandOff", {
    example: {
      primary: {
        provider: "anthropic",
        id: "claude-sonnet-4-5",
        api: "anthropic-messages",
        baseUrl: "https://api.anthropic.com",
        contextWindow: 200000,
        maxTokens: 64000,
        cost: { input: 3, output: 15, cacheRead: 0.3, cacheWrite: 3.75 },
        auth: { ok: true, apiKey: "sk-ant-example" },
      },
      fallback: null,
      notices: [],
    },
  });
export type SummarizerHandOffBody = z.infer<typeof SummarizerHandOffBody>;

export const SummarizerHandOffAccepted = z
  .object({
    primary: z.string().openapi({ description: "`provider/id` of the primary." }),
    fallback: z.string().nullable().describe("`provider/id` of the fallback; null when none was handed off."),
    notices: z.array(z.string()).describe("The notices of the hand-off, echoed (shown in session status)."),
  })
  .openapi("SummarizerHandOffAccepted");
