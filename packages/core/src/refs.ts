/**
 * Short refs of summarized tool calls (CAP-REF): minting `tN` handles in order (CAP-REF-1), the ref
 * footer every summary carries (CAP-REF-2), and the rewrite of the summarizer's per-bullet
 * `[[N:tool]]` labels into those handles (CAP-REF-3). Pure string work; the counter itself lives
 * with the session state, so minting takes `next` in and hands the new `next` back.
 */

export interface MintedRefs {
  /** `t<next>`, `t<next+1>`, ... in the batch's call order. */
  refs: string[];
  /** The counter value after minting. */
  next: number;
}

/** CAP-REF-1: numbers are burned even when the batch is later dropped (gaps are harmless). */
export function mintRefs(next: number, count: number): MintedRefs {
  if (!Number.isInteger(next) || next < 1) throw new RangeError(`ref counter must be an integer >= 1, got ${next}`);
  if (!Number.isInteger(count) || count < 0) throw new RangeError(`ref count must be an integer >= 0, got ${count}`);
  const refs = Array.from({ length: count }, (_, i) => `t${next + i}`);
  return { refs, next: next + count };
}

/**
 * CAP-REF-2 footer: blank line, `---`, a bold refs line with each ref in backticks joined by ", ",
 * then the line that tells the model how to get the originals back. No trailing newline, so the
 * footer is byte-stable when summaries are concatenated. No refs, no footer.
 */
export function refFooter(refs: readonly string[]): string {
  if (refs.length === 0) return "";
  const list = refs.map((r) => `\`${r}\``).join(", ");
  return `\n\n---\n**Condensed tool refs**: ${list}\nCall \`context_tree_query\` with these refs to read the full original outputs.`;
}

const FENCE = /^\s*```/;
// A label at line start, after optional indentation and one `- ` / `* ` bullet marker.
const LEADING_LABEL = /^(\s*(?:[-*] )?)\[\[(\d+):([^[\]\s]+)\]\]\s*/;
// Any other well-formed label anywhere on the line (plus the whitespace after it).
const ANY_LABEL = /\[\[\d+:[^[\]\s]+\]\]\s*/g;

/**
 * CAP-REF-3: rewrite `[[N:tool]]` labels into `` `tN` `` handles. A leading label becomes its ref only
 * when N is in range and names the tool at that position (case-insensitive); otherwise it is dropped,
 * as is every other label on the line, so no raw label ever reaches the agent's context. Fenced code
 * is left exactly as written. `refs` defaults to `t1..tn` for callers that number from 1.
 */
export function rewriteInlineRefs(
  text: string,
  toolNames: readonly string[],
  refs: readonly string[] = toolNames.map((_, i) => `t${i + 1}`),
): string {
  let inFence = false;
  return text
    .split("\n")
    .map((line) => {
      if (FENCE.test(line)) {
        inFence = !inFence;
        return line;
      }
      if (inFence) return line;
      const lead = LEADING_LABEL.exec(line);
      let out = line;
      if (lead) {
        const prefix = lead[1] ?? "";
        const n = Number(lead[2]);
        const expected = toolNames[n - 1];
        const ref = refs[n - 1];
        const valid =
          n >= 1 &&
          expected !== undefined &&
          ref !== undefined &&
          expected.trim().toLowerCase() === (lead[3] ?? "").trim().toLowerCase();
        out = prefix + (valid ? `\`${ref}\` ` : "") + line.slice(lead[0].length);
      }
      return out.replace(ANY_LABEL, "");
    })
    .join("\n");
}
