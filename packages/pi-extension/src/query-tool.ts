/**
 * The `context_tree_query` tool (CAP-QUERY-1): registered whenever the extension is loaded, even when
 * Condense is disabled, so refs already in the context stay recoverable. One required parameter,
 * `toolCallIds: string[]`, and an optional `offset` (and `limit`) to page through a long output: every
 * cut page names the call that returns the next one. The answer is the API's formatted text, the
 * structured hits go in details.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { Type } from "@mariozechner/pi-ai";
import { QUERY_TOOL_NAME } from "@condense/core";
import type { CondenseSession } from "./condense-session.ts";

export const QUERY_TOOL_DESCRIPTION = [
  "Recover the full original output of tool calls that Condense summarized.",
  "Pass the refs listed in a Condense summary (for example t3, t12); raw tool-call ids and id@timestamp keys work too.",
  'Example: {"toolCallIds": ["t3", "t12"]}.',
  "A raw id that the provider reused returns every occurrence, each labelled id@timestamp.",
  "A long output comes back one page at a time; a cut page ends with the exact call that returns the next page",
  '(the same id with an "offset"), and the pages joined in order are the original output.',
].join(" ");

export function registerQueryTool(pi: ExtensionAPI, session: () => CondenseSession | undefined): void {
  pi.registerTool({
    name: QUERY_TOOL_NAME,
    label: "Condense query",
    description: QUERY_TOOL_DESCRIPTION,
    promptSnippet: "context_tree_query: get back the full output behind a Condense summary ref (tN)",
    parameters: Type.Object({
      toolCallIds: Type.Array(Type.String(), {
        description: "Refs (tN), raw tool-call ids or id@timestamp keys",
        minItems: 1,
      }),
      offset: Type.Optional(
        Type.Integer({
          minimum: 0,
          description: "Character offset into each output: the offset a cut page names for its next page (default 0)",
        }),
      ),
      limit: Type.Optional(
        Type.Integer({ minimum: 1, maximum: 2000, description: "Lines per page (default and maximum 2000)" }),
      ),
    }),
    async execute(_toolCallId, params) {
      const s = session();
      if (!s) throw new Error("Condense is not connected to this session yet");
      const ids = params.toolCallIds.filter((x) => typeof x === "string" && x.length > 0);
      if (ids.length === 0) throw new Error("toolCallIds must list at least one ref or id");
      const page = {
        ...(typeof params.offset === "number" ? { offset: params.offset } : {}),
        ...(typeof params.limit === "number" ? { limit: params.limit } : {}),
      };
      const r = await s.client.query(ids, page);
      return { content: [{ type: "text", text: r.text }], details: r.details };
    },
  });
}
