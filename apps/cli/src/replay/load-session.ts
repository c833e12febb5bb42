/**
 * Reads a session file of any supported agent into the messages a replay feeds the client. The
 * full history is replayed (host compactions ignored): that is the context Condense has to keep
 * small. Messages without a timestamp (SWE-agent, some Codex items) get one a second after the
 * previous message, because capture keys, chains and recovery grace are ordered by timestamps.
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename } from "node:path";
import { readAnySession, SUPPORTED_SESSION_FORMATS, type AgentMessage, type SessionFormat } from "@condense/core";
import { CliError, EXIT } from "../cli-error.ts";
import { hostCompactions, type HostCompaction } from "./recorded-baseline.ts";

export interface LoadedSession {
  file: string;
  format: SessionFormat;
  messages: AgentMessage[];
  skipped: { line: number; reason: string }[];
  warnings: string[];
  /** The host's own compactions (the "as recorded" baseline applies them where they happened). */
  compactions: HostCompaction[];
}

const FORMAT_NAMES = "a pi, Claude Code, Codex CLI or SWE-agent session file";

export function loadSession(file: string): LoadedSession {
  if (!existsSync(file)) throw new CliError(`file not found: ${file} — pass a path to ${FORMAT_NAMES}`, EXIT.input);
  if (!statSync(file).isFile()) throw new CliError(`not a file: ${file} — pass a path to ${FORMAT_NAMES}`, EXIT.input);
  const text = readFileSync(file, "utf8");
  const r = readAnySession(text, basename(file), { compaction: "ignore" });
  if (r.format === "unknown") {
    throw new CliError(
      `unknown session format: ${file}`,
      EXIT.input,
      `supported formats: ${SUPPORTED_SESSION_FORMATS.join(", ")} (pi JSONL v1/v3, Claude Code JSONL, Codex CLI rollout JSONL, SWE-agent .traj)`,
    );
  }
  if (r.messages.length === 0) {
    const why = r.skipped[0]
      ? ` (${r.skipped[0].reason}${r.skipped[0].line ? ` at line ${r.skipped[0].line}` : ""})`
      : "";
    throw new CliError(
      `no messages could be read from ${file}${why}`,
      EXIT.input,
      `the file looks like ${r.format} but holds no readable conversation`,
    );
  }
  return {
    file,
    format: r.format,
    messages: withTimestamps(r.messages),
    skipped: r.skipped,
    warnings: r.warnings,
    compactions: hostCompactions(text, basename(file)),
  };
}

/** Copies of the messages where every one has a numeric timestamp not earlier than its predecessor's. */
export function withTimestamps(messages: readonly AgentMessage[]): AgentMessage[] {
  const firstAt = messages.findIndex((m) => typeof m.timestamp === "number" && Number.isFinite(m.timestamp));
  // Untimed messages before the first timed one count back from it, a second apart.
  let clock = firstAt >= 0 ? (messages[firstAt]!.timestamp as number) - 1000 * (firstAt + 1) : Date.UTC(2025, 0, 1);
  return messages.map((m) => {
    const ts = typeof m.timestamp === "number" && Number.isFinite(m.timestamp) ? m.timestamp : undefined;
    clock = ts !== undefined && ts >= clock ? ts : clock + 1000;
    return ts === clock ? m : ({ ...m, timestamp: clock } as AgentMessage);
  });
}
