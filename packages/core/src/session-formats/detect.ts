/**
 * Which agent wrote a session file, and one entry point that reads any of them. Detection looks at
 * the content first (the shapes of the first parseable entries) and uses the file name only as a
 * tie-breaker, so renamed files still work.
 */
import { isObject } from "../messages.ts";
import { readPiSession } from "../session-reader.ts";
import { readClaudeCodeSession } from "./claude-code.ts";
import { readCodexSession } from "./codex-cli.ts";
import { readSweAgentTrajectory } from "./swe-agent.ts";
import { parseJsonLines } from "./json-lines.ts";
import type { FormatReadOptions, FormatReadResult, SessionFormat } from "./types.ts";

export const SUPPORTED_SESSION_FORMATS: readonly SessionFormat[] = ["pi", "claude-code", "codex-cli", "swe-agent"];

const PI_TYPES = new Set([
  "session",
  "model_change",
  "thinking_level_change",
  "compaction",
  "custom",
  "custom_message",
  "branch_summary",
  "label",
  "session_info",
]);
const PI_ROLES = new Set(["user", "assistant", "toolResult", "bashExecution", "custom", "hookMessage"]);
const CLAUDE_TYPES = new Set([
  "queue-operation",
  "file-history-snapshot",
  "attachment",
  "last-prompt",
  "ai-title",
  "permission-mode",
  "summary",
]);
const CODEX_TYPES = new Set(["session_meta", "response_item", "event_msg", "turn_context", "compacted"]);
/** How many leading lines detection inspects; enough to get past headers and bookkeeping lines. */
const SAMPLE_LINES = 60;

export function detectSessionFormat(text: string, fileName = ""): SessionFormat | "unknown" {
  const src = typeof text === "string" ? text : "";
  const lower = fileName.toLowerCase();
  if (lower.endsWith(".traj") || looksLikeTrajectory(src)) return "swe-agent";

  const head = src.split("\n", SAMPLE_LINES).join("\n");
  const entries = parseJsonLines(head, []);
  const score: Record<SessionFormat, number> = { pi: 0, "claude-code": 0, "codex-cli": 0, "swe-agent": 0 };
  for (const { value: v } of entries) {
    const t = typeof v.type === "string" ? v.type : undefined;
    if (t && CODEX_TYPES.has(t)) score["codex-cli"] += 2;
    else if (t && CLAUDE_TYPES.has(t)) score["claude-code"] += 2;
    else if (
      (t === "user" || t === "assistant") &&
      isObject(v.message) &&
      ("uuid" in v || "parentUuid" in v || "sessionId" in v)
    )
      score["claude-code"] += 2;
    else if (t === "message" && isObject(v.message) && PI_ROLES.has(String(v.message.role))) score.pi += 2;
    else if (t && PI_TYPES.has(t)) score.pi += 1;
    // Older Codex rollouts: a bare header with `instructions`, then bare response items.
    else if (!t && typeof v.instructions === "string" && typeof v.id === "string") score["codex-cli"] += 2;
    else if (t === "message" && typeof v.role === "string" && Array.isArray(v.content)) score["codex-cli"] += 1;
    else if (t === "function_call" || t === "function_call_output" || t === "reasoning") score["codex-cli"] += 1;
  }
  let best: SessionFormat | "unknown" = "unknown";
  let bestScore = 0;
  for (const f of SUPPORTED_SESSION_FORMATS) {
    if (score[f] > bestScore) {
      best = f;
      bestScore = score[f];
    }
  }
  if (best !== "unknown") return best;
  if (lower.includes("rollout-") || lower.includes("codex")) return entries.length > 0 ? "codex-cli" : "unknown";
  return "unknown";
}

/** A whole-document JSON object with SWE-agent's keys (also when the document is cut off). */
function looksLikeTrajectory(text: string): boolean {
  const start = text.trimStart();
  if (!start.startsWith("{")) return false;
  const head = start.slice(0, 4096);
  // A JSONL file's first line would close before these keys appear at the top level of a multi-line document.
  return (
    /^\{\s*"(trajectory|history|environment|info|replay_config)"\s*:/.test(head) ||
    (/"trajectory"\s*:\s*\[/.test(head) && /"history"\s*:\s*\[/.test(start.slice(0, 2_000_000)))
  );
}

export type AnySessionResult = FormatReadResult;

/**
 * Detect the format and read the session. Unknown formats come back with no messages and a warning
 * naming the supported formats; nothing throws.
 */
export function readAnySession(text: string, fileName = "", options: FormatReadOptions = {}): AnySessionResult {
  const format = detectSessionFormat(text, fileName);
  try {
    switch (format) {
      case "pi": {
        const r = readPiSession(text, { compaction: options.compaction ?? "apply" });
        const warnings: string[] = [];
        if (!r.header) warnings.push("no session header: the file starts mid-session");
        return { format, messages: r.messages, skipped: r.skipped, warnings };
      }
      case "claude-code":
        return readClaudeCodeSession(text, options);
      case "codex-cli":
        return readCodexSession(text, options);
      case "swe-agent":
        return readSweAgentTrajectory(text);
      default:
        return {
          format: "unknown",
          messages: [],
          skipped: [],
          warnings: [`unrecognised session format; supported: ${SUPPORTED_SESSION_FORMATS.join(", ")}`],
        };
    }
  } catch (err) {
    return { format, messages: [], skipped: [{ line: 0, reason: `reader failure: ${String(err)}` }], warnings: [] };
  }
}
