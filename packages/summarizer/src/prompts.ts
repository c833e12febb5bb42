/**
 * The two prompts the summarizer sends (CAP-SUM-1/2 per batch, CAP-SUM-11 for chain fusion). The
 * wording is Condense's; the information matches pi-condense's contract: per-call labelled bullets,
 * verbatim paths/identifiers/errors, skip calls with nothing reusable, never invent labels.
 */
import { serializeBatch, type CapturedBatch } from "@condense/core";

const BATCH_INSTRUCTIONS = `You are condensing the tool calls an AI coding agent just made, so the agent can keep working from a short record instead of the full outputs.

For each tool call below write 1-3 markdown bullets:
- name the tool and say in one sentence what the call did;
- give its key outcome (result, exit status, error);
- keep anything later work will need: file paths, identifiers, function signatures, commands, versions, error messages. Copy these exactly as they appear; never paraphrase them.
Leave out calls that succeeded and produced nothing worth remembering.

Labels: every call is introduced by a label such as [[2:bash]]. Begin the first bullet of each call you keep with that call's label, copied exactly (same number, same tool name), as the first thing after "- " with no bold, backticks or numbering around it. Do not renumber, rename or invent labels, and do not write the label of a call you leave out.

Be brief. Output only the bullets.`;

const FUSION_INSTRUCTIONS = `Below are several summaries of consecutive steps of one finished sub-task of an AI coding agent. Merge them into one short summary of the whole sub-task.

- Say each fact once, even if several step summaries repeat it.
- Keep concrete outcomes, decisions, file paths, identifiers and error messages exactly as written.
- Keep reference tokens such as \`t12\` or \`b3\` unchanged next to the facts they refer to; the agent uses them to fetch the original outputs.
- Write a short narrative or a few grouped bullets. Output only the summary.`;

export function buildBatchPrompt(batch: Pick<CapturedBatch, "assistantText" | "toolCalls">): string {
  return `${BATCH_INSTRUCTIONS}\n\n<tool-call-batch>\n${serializeBatch(batch)}\n</tool-call-batch>`;
}

export function buildFusionPrompt(summaries: readonly string[]): string {
  const distinct = [...new Set(summaries.map((s) => s.trim()).filter(Boolean))];
  return `${FUSION_INSTRUCTIONS}\n\n<sub-task-summaries>\n${distinct.join("\n\n")}\n</sub-task-summaries>`;
}
