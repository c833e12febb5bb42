/**
 * One pi session's Condense wiring: the client, the per-session counters the adapter keeps (the
 * branch-wide assistant position that numbers turns, the cost baseline), the latest ctx for
 * background work, and the reactions to client events (summary delivery, diagnostics, cost).
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { createCondenseClient, type ClientEvent, type CondenseClient, type CondenseHost } from "@condense/client";
import { costSinceLoad, footerWidgetText, isAssistant, type AgentMessage, type CondenseSettings, type SummarizerStats } from "@condense/core";
import { branchMessages } from "./branch-messages.ts";
import type { ConnectionConfig } from "./connection-config.ts";
import { SummaryDelivery } from "./summary-delivery.ts";
import { notify, setStatus } from "./ui-guard.ts";

export const COST_EVENT = "cost:external";
export const DIAGNOSTIC_ENTRY = "condense-diagnostic";

export interface SessionDeps {
  pi: ExtensionAPI;
  connection: ConnectionConfig;
  settings: CondenseSettings;
  /** Embedded mode: starts the in-process service (dynamically imported, so fleet mode never loads it). */
  startEmbedded: (dataDir: string) => Promise<CondenseHost>;
}

export class CondenseSession {
  readonly client: CondenseClient;
  readonly summaries: SummaryDelivery;
  ctx: ExtensionContext | undefined;
  /** Position of the next assistant message among all assistant messages of the branch. */
  private assistantCount = 0;
  private readonly assistantIndex = new WeakMap<object, number>();
  private costBaseline: SummarizerStats | null = null;
  private lastCostKey = "";
  /** A transient footer text (pending, recovered) shown until the next render refresh. */
  transientStatus: string | null = null;

  constructor(private readonly deps: SessionDeps, sessionId: string, spoolPath: string | undefined) {
    const { connection } = deps;
    this.summaries = new SummaryDelivery(deps.pi);
    this.client = createCondenseClient({
      sessionId,
      settings: deps.settings,
      ...(connection.mode === "fleet"
        ? { url: connection.url, apiKey: connection.apiKey }
        : { host: () => deps.startEmbedded(connection.dataDir) }),
      ...(spoolPath ? { spoolPath } : {}),
      onEvent: (e) => this.onClientEvent(e),
    });
  }

  /** session_start / session_tree: rebuild from the branch, sync, resend, rearm. */
  async reload(ctx: ExtensionContext): Promise<void> {
    this.ctx = ctx;
    const branch = branchMessages(ctx);
    this.assistantCount = branch.filter(isAssistant).length;
    this.summaries.reset(branch);
    const started = await this.client.start(branch, { syncTimeoutMs: Number(process.env.CONDENSE_SYNC_TIMEOUT_MS) || 8_000 });
    this.costBaseline = this.client.state.stats;
    // Summaries the service made while this process was away enter the branch now (idle: appended).
    this.deliver("append");
    if (started.rearmed) this.transientStatus = "condense: recovered pending (reload)";
    this.refreshFooter();
  }

  /** message_end of an assistant: its branch-wide position (the turn index captures carry). */
  noteAssistant(message: AgentMessage): void {
    if (!isAssistant(message) || this.assistantIndex.has(message)) return;
    this.assistantIndex.set(message, this.assistantCount++);
  }

  turnIndexOf(message: AgentMessage): number {
    const known = this.assistantIndex.get(message as object);
    return known ?? Math.max(0, this.assistantCount - 1);
  }

  branch(): AgentMessage[] {
    return this.ctx ? branchMessages(this.ctx) : [];
  }

  /** Deliver summaries the mirror has (staged or applied) that this branch does not hold yet. */
  deliver(how: "append" | "steer"): number {
    try {
      const all = [...this.client.state.summaries, ...this.client.stagedSummaries];
      return this.summaries.deliver(all, how);
    } catch (err) {
      console.error(`condense: summary delivery failed: ${err instanceof Error ? err.message : String(err)}`);
      return 0;
    }
  }

  refreshFooter(): void {
    const s = this.client.settings;
    const text = this.transientStatus ?? this.client.footerText();
    setStatus(this.ctx, footerWidgetText(s.showStatusLine, text) ?? undefined);
  }

  private onClientEvent(e: ClientEvent): void {
    switch (e.type) {
      case "staged":
        // Idle between prompts: append now; during a run the tool_result hook steers them in.
        if (e.newSummaries.length > 0 && this.isIdle()) this.deliver("append");
        break;
      case "applied":
        this.emitCost();
        this.transientStatus = null;
        this.refreshFooter();
        break;
      case "diagnostics":
        for (const d of e.diagnostics) {
          try { this.deps.pi.appendEntry(DIAGNOSTIC_ENTRY, { kind: d.kind, detail: d.detail }); } catch { /* out-of-band only */ }
        }
        break;
      case "error":
        if (process.env.CONDENSE_DEBUG === "1") console.error(`condense: ${e.where}: ${e.error instanceof Error ? e.error.message : String(e.error)}`);
        break;
      default:
        break;
    }
  }

  private isIdle(): boolean {
    try { return this.ctx?.isIdle() ?? false; } catch { return false; }
  }

  /** CAP-SUM-14: spend since this session (re)loaded, keyed by source so consumers overwrite. */
  private emitCost(): void {
    const payload = costSinceLoad(this.client.state.stats, this.costBaseline);
    const key = JSON.stringify(payload);
    if (key === this.lastCostKey) return;
    this.lastCostKey = key;
    try { this.deps.pi.events.emit(COST_EVENT, payload); } catch { /* the bus is best-effort */ }
  }

  notice(text: string, level: "info" | "warning" | "error" = "info"): void {
    notify(this.ctx, text, level);
  }
}
