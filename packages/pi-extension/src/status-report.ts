/**
 * The texts of `/condense status` and `/condense stats` (CAP-UX-5): a settings header, the summarizer
 * totals, and the `--- context ---` block with the live context metrics. Pure functions of what the
 * client knows, so they are tested without pi.
 */
import { formatCount, type CondenseSettings, type ContextMetrics, type SummarizerStats } from "@condense/core";

export function formatCost(usd: number): string {
  if (usd > 0 && usd < 0.001) return "<$0.001";
  return `$${usd.toFixed(3)}`;
}

const secs = (ms: number) => (ms > 0 ? `${Math.round(ms / 1000)}s` : "disabled");

export interface StatusInput {
  settings: CondenseSettings;
  connection: string;
  stats: SummarizerStats;
  metrics: ContextMetrics | null;
  rearmed: boolean;
  pendingTurns: number;
  stateVersion: number;
  outbox: number;
  degraded: boolean;
  /** What summarized the latest flush, from the service's flush metrics (absent while unreachable). */
  summarizedBy?: SummarizedBy | null;
}

export interface SummarizedBy {
  model: string | null;
  source: string | null;
  notice: string | null;
}

/** The newest flush attempt with a model (or a notice) in the service's session status. */
export function summarizedByFromStatus(status: Record<string, unknown> | null): SummarizedBy | null {
  const flushes = status?.lastFlushes;
  if (!Array.isArray(flushes)) return null;
  for (const f of flushes as Record<string, unknown>[]) {
    const model = typeof f.model === "string" ? f.model : null;
    const notice = typeof f.summarizerNotice === "string" ? f.summarizerNotice : null;
    if (!model && !notice) continue;
    return { model, source: typeof f.summarizerSource === "string" ? f.summarizerSource : null, notice };
  }
  return null;
}

const SOURCE_TEXT: Record<string, string> = {
  "handed-off": "this session's model, through pi",
  operator: "a model of the service's operator",
  "worker-default": "the service's default",
  deterministic: "extractive, no model",
};

export function statusReport(i: StatusInput): string {
  const s = i.settings;
  const lines = [
    "Condense status",
    `  enabled: ${s.enabled ? "yes" : "no"}`,
    `  service: ${i.connection}${i.degraded ? " (unreachable; retrying in the background)" : ""}`,
    `  model: ${s.summarizerModel} · fallback: ${s.summarizerFallbackModel ?? "none"}`,
    ...summarizedByLines(i.summarizedBy),
    `  thinking: ${s.summarizerThinking}`,
    `  idle timeout: ${secs(s.summarizerIdleTimeoutMs)} · max timeout: ${secs(s.summarizerMaxTimeoutMs)}`,
    `  trigger: ${s.pruneOn === "on-demand" ? "on demand (/condense now)" : "on the agent's text reply"}`,
    `  budget: ${s.autoBudgetThreshold === null ? "off" : `${Math.round(s.autoBudgetThreshold * 100)}%`} · turn delta: ${s.budgetTurnDelta === null ? "off" : `${Math.round(s.budgetTurnDelta * 100)}%`}`,
    `  batching: ${s.batchingMode} · min batch chars: ${s.minBatchChars} · recovery grace: ${s.recoveryGraceTurns} turns`,
    `  dedup: ${s.dedupByContentHash ? "on" : "off"} (scope ${s.dedupScope})`,
    `  protected tools: ${s.protectedTools.length > 0 ? s.protectedTools.join(", ") : "none"}`,
    `  protected paths: ${s.protectedPaths.length > 0 ? s.protectedPaths.join(", ") : "none"}`,
    `  status line: ${s.showStatusLine ? "on" : "off"}`,
    `  state version: ${i.stateVersion} · unsent: ${i.outbox} · pending turns: ${i.pendingTurns}`,
  ];
  lines.push(...summarizerBlock(i.stats));
  lines.push("--- context ---");
  const m = i.metrics;
  lines.push(`  thinking: ${m ? m.openCycleThinkingTokens : 0} tokens (open segment)`);
  lines.push(`  chain share: ${m ? m.largestChainSharePct : 0}%`);
  lines.push(`  frontier gap: ${m ? m.frontierGapTokens : 0} tokens`);
  if (i.rearmed) lines.push("  rearmed: yes");
  return lines.join("\n");
}

function summarizedByLines(by: SummarizedBy | null | undefined): string[] {
  if (by === undefined) return [];
  if (by === null) return ["  summarized by: (no summary yet)"];
  const lines: string[] = [];
  if (by.model)
    lines.push(`  summarized by: ${by.model}${by.source ? ` (${SOURCE_TEXT[by.source] ?? by.source})` : ""}`);
  if (by.notice) lines.push(`  notice: ${by.notice}`);
  return lines;
}

function summarizerBlock(st: SummarizerStats): string[] {
  if (st.callCount === 0 && st.chainsCompressed === 0) return ["--- summarizer ---", "  (no summarizer calls yet)"];
  return [
    "--- summarizer ---",
    `  calls: ${st.callCount}`,
    `  input: ${formatCount(st.totalInputTokens)} · output: ${formatCount(st.totalOutputTokens)}`,
    `  cost: ${formatCost(st.totalCost)}`,
  ];
}

export function statsReport(st: SummarizerStats): string {
  if (st.callCount === 0 && st.chainsCompressed === 0) return "condense: no summarizer calls yet";
  const lines = [
    `condense: ${st.callCount} summarizer call(s)`,
    `  input: ${formatCount(st.totalInputTokens)} tokens · output: ${formatCount(st.totalOutputTokens)} tokens`,
    `  cost: ${formatCost(st.totalCost)}`,
  ];
  if (st.chainsCompressed > 0) lines.push(`  chains: ${st.chainsCompressed} compressed`);
  return lines.join("\n");
}

/** `/condense settings`: every setting key with its value, nested ones as `parent.child`. */
export function settingsReport(settings: CondenseSettings): string {
  const lines = ["Condense settings"];
  for (const [k, v] of Object.entries(settings)) {
    if (v && typeof v === "object" && !Array.isArray(v))
      for (const [c, cv] of Object.entries(v)) lines.push(`  ${k}.${c}: ${JSON.stringify(cv)}`);
    else lines.push(`  ${k}: ${JSON.stringify(v)}`);
  }
  return lines.join("\n");
}
