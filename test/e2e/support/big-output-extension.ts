/**
 * A pi extension for the paging end-to-end test: one tool, `big_output`, whose result is a
 * deterministic text of the asked size (pi's own bash and read tools cut their output to 50 KB, so a
 * multi-megabyte tool result needs a tool of its own). The test rebuilds the same text to compare.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";

/** `bytes` ASCII bytes in numbered lines (a few hundred bytes of the tail are multi-byte). */
export function bigOutputText(bytes: number): string {
  const parts: string[] = [];
  let n = 0;
  for (let i = 0; n < bytes; i++) {
    const l = `row ${i} ${"abcdefghij".repeat(6)}\n`;
    parts.push(l);
    n += l.length;
  }
  return `${parts.join("").slice(0, bytes - 40)}tail: é 😀 ${"z".repeat(20)}`;
}

export default function bigOutput(pi: ExtensionAPI): void {
  pi.registerTool({
    name: "big_output",
    label: "Big output",
    description: "Print a deterministic text of the given size in bytes.",
    parameters: {
      type: "object",
      properties: { bytes: { type: "integer", minimum: 1 } },
      required: ["bytes"],
    } as never,
    async execute(_toolCallId: string, params: { bytes: number }) {
      return { content: [{ type: "text" as const, text: bigOutputText(params.bytes) }], details: {} };
    },
  } as never);
}
