/**
 * What every session-format reader returns: the conversation in core's message model plus an honest
 * account of what could not be read. Readers are pure (text in, data out) and never throw.
 */
import type { AgentMessage } from "../messages.ts";
import type { SkippedLine } from "../session-reader.ts";

export type SessionFormat = "pi" | "claude-code" | "codex-cli" | "swe-agent";

export interface FormatReadOptions {
  /**
   * `apply` (default) = what the agent's model saw last (a host compaction replaces earlier history
   * with its summary). `ignore` = the full history with host compaction summaries dropped (what a
   * replay or benchmark wants to condense).
   */
  compaction?: "apply" | "ignore";
}

export interface FormatReadResult {
  format: SessionFormat | "unknown";
  messages: AgentMessage[];
  /** Lines (1-based; 0 = the file as a whole) that were dropped, and why. */
  skipped: SkippedLine[];
  /** Things that were read but changed or left out on purpose (system prompts, sidechains, ...). */
  warnings: string[];
}
