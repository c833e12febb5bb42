/**
 * One pi session's Condense wiring: the client, the per-session counters the adapter keeps (the
 * branch-wide assistant position that numbers turns, the cost baseline), the latest ctx for
 * background work, and the reactions to client events (summary delivery, diagnostics, cost).
 */
import { readFileSync, statSync } from "node:fs";
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import {
  createCondenseClient,
  type ClientEvent,
  type CondenseClient,
  type CondenseHost,
  type ScheduleBackground,
  type StateCache,
} from "@condense/client";
import {
  costSinceLoad,
  footerWidgetText,
  isAssistant,
  occurrenceKeysOf,
  type AgentMessage,
  type CondenseSettings,
  type SummarizerStats,
} from "@condense/core";
import { branchMessages, pathSummaryMessages } from "./branch-messages.ts";
import { resolveHandOff } from "./model-handoff.ts";
import { importFromPiCondense, type PiCondenseImport } from "./pi-condense-import.ts";
import type { ConnectionConfig } from "./connection-config.ts";
import { extensionConfig } from "./extension-config.ts";
import { openStateCache } from "./state-cache-location.ts";
import { SummaryDelivery } from "./summary-delivery.ts";
import { hasUI, notify, setStatus } from "./ui-guard.ts";

export const COST_EVENT = "cost:external";
export const DIAGNOSTIC_ENTRY = "condense-diagnostic";
/** A pi-condense spill's sidecar body (CAP-SPILL), bounded; null when it is gone. */
function readSpillFile(path: string): string | null {
  try {
    return statSync(path).size <= 16 * 1024 * 1024 ? readFileSync(path, "utf8") : null;
  } catch {
    return null;
  }
}

/** Re-resolve the hand-off this often: pi refreshes OAuth tokens, and the service holds a copy. */
const HANDOFF_REFRESH_MS = 10 * 60_000;

export interface SessionDeps {
  pi: ExtensionAPI;
  connection: ConnectionConfig;
  settings: CondenseSettings;
  /** Local mode: the per-user local service (reached over its socket, started when none answers). */
  localHost: (dataDir: string) => CondenseHost;
  /** When the client's background work runs (model-wait.ts). */
  schedule?: ScheduleBackground;
}

export class CondenseSession {
  readonly client: CondenseClient;
  readonly summaries: SummaryDelivery;
  /** The last applied state on disk (state-cache-location.ts); shutdown waits for its last write. */
  readonly stateCache: StateCache | undefined;
  ctx: ExtensionContext | undefined;
  /** Position of the next assistant message among all assistant messages of the branch. */
  private assistantCount = 0;
  private readonly assistantIndex = new WeakMap<object, number>();
  private costBaseline: SummarizerStats | null = null;
  private lastCostKey = "";
  /** Occurrence keys of the branch's projection, cached per leaf entry (the branch only grows at the leaf). */
  private keysAt: { leaf: string | null; keys: ReadonlySet<string> } | null = null;
  /** A transient footer text (pending, recovered) shown until the next render refresh. */
  transientStatus: string | null = null;

  constructor(
    private readonly deps: SessionDeps,
    sessionId: string,
    spoolPath: string | undefined,
  ) {
    const { connection } = deps;
    this.summaries = new SummaryDelivery(deps.pi);
    // Renders before the first sync (a resumed session) use the last applied state, read from disk.
    const stateCache = openStateCache(connection, sessionId, (error) =>
      this.onClientEvent({ type: "error", where: "state cache write", error }),
    );
    this.stateCache = stateCache;
    this.client = createCondenseClient({
      sessionId,
      settings: deps.settings,
      ...(connection.mode === "fleet"
        ? { url: connection.url, apiKey: connection.apiKey }
        : { host: deps.localHost(connection.dataDir) }),
      ...(spoolPath ? { spoolPath } : {}),
      ...(stateCache ? { stateCache } : {}),
      ...(deps.schedule ? { schedule: deps.schedule } : {}),
      onEvent: (e) => this.onClientEvent(e),
      // A local service summarizes with this session's own models; a fleet with its operator's.
      ...(connection.mode !== "fleet"
        ? { summarizerHandOff: () => resolveHandOff(this.ctx, this.client.settings, this.activeModel) }
        : {}),
    });
  }

  /** The model pi's model_select just chose (ctx.model may still be the old one inside the event). */
  private activeModel: NonNullable<ExtensionContext["model"]> | undefined;
  private handOffSignature = "";
  private handOffAt = 0;
  private lastHandOffNotice = "";

  /**
   * Hand the service the summarizer model again when what it depends on changed (the active model,
   * summarizerModel, summarizerFallbackModel), or when the last hand-off is old enough that a
   * short-lived key (an OAuth token) may have been refreshed. `force`: session start, model_select.
   */
  syncSummarizer(force = false, model?: NonNullable<ExtensionContext["model"]>): void {
    if (model) this.activeModel = model;
    const active = this.activeModel ?? this.ctx?.model;
    const s = this.client.settings;
    const signature = `${active ? `${active.provider}/${active.id}` : ""}|${s.summarizerModel}|${s.summarizerFallbackModel ?? ""}`;
    if (!force && signature === this.handOffSignature && Date.now() - this.handOffAt < HANDOFF_REFRESH_MS) return;
    this.handOffSignature = signature;
    this.handOffAt = Date.now();
    void this.client.handOffSummarizer().then((r) => {
      const notice = r.notices.join("; ");
      if (notice && notice !== this.lastHandOffNotice) this.notice(`condense: ${notice}`, "warning");
      this.lastHandOffNotice = notice;
      if (r.error && extensionConfig().debug) console.error(`condense: summarizer hand-off: ${r.error}`);
    });
  }

  /** session_start / session_tree: rebuild from the branch, sync, resend, rearm. */
  async reload(ctx: ExtensionContext): Promise<void> {
    this.ctx = ctx;
    const branch = branchMessages(ctx);
    this.assistantCount = branch.filter(isAssistant).length;
    this.summaries.reset(pathSummaryMessages(ctx));
    this.keysAt = null;
    // Before the start's sync, so the model is there before the first flush can be.
    this.syncSummarizer(true);
    await this.importPiCondense(ctx);
    const started = await this.client.start(branch, {
      syncTimeoutMs: extensionConfig().syncTimeoutMs,
    });
    this.costBaseline = this.client.state.stats;
    // Summaries the service made while this process was away enter the branch now when idle; this
    // runs off session_start (which never waits on it), so during a run the hooks deliver them.
    if (this.isIdle()) this.deliver("append");
    if (started.rearmed) this.transientStatus = "condense: recovered pending (reload)";
    this.refreshFooter();
  }

  /**
   * A session pi-condense condensed: its entries seed the service's state once (records, refs,
   * summaries, aliases, chains, frontier), so nothing is summarized again and no summary repeats.
   */
  private async importPiCondense(ctx: ExtensionContext): Promise<void> {
    let body: PiCondenseImport | null;
    try {
      body = importFromPiCondense(ctx.sessionManager.getBranch() as never, readSpillFile);
    } catch (err) {
      this.notice(
        `condense: could not read pi-condense's entries: ${err instanceof Error ? err.message : String(err)}`,
        "warning",
      );
      return;
    }
    if (!body) return;
    try {
      if (await this.client.importState({ ...body, source: "pi-condense" })) {
        this.notice(
          `condense: continuing pi-condense's work: ${body.records.length} condensed output(s), ${body.summaries.length} summary(ies), ${body.chains.length} chain(s)`,
        );
      }
    } catch (err) {
      this.notice(
        `condense: could not import pi-condense's state (it will be condensed again): ${err instanceof Error ? err.message : String(err)}`,
        "warning",
      );
    }
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
      return this.summaries.deliver(all, how, () => this.branchKeys());
    } catch (err) {
      console.error(`condense: summary delivery failed: ${err instanceof Error ? err.message : String(err)}`);
      return 0;
    }
  }

  /** Occurrence keys of the context the agent sees now (the projection: compacted calls are not in it). */
  private branchKeys(): ReadonlySet<string> {
    let leaf: string | null = null;
    try {
      leaf = this.ctx?.sessionManager.getLeafId() ?? null;
    } catch {
      /* stale ctx */
    }
    if (this.keysAt && this.keysAt.leaf === leaf) return this.keysAt.keys;
    const keys = occurrenceKeysOf(this.branch());
    this.keysAt = { leaf, keys };
    return keys;
  }

  refreshFooter(): void {
    // Headless (json, print, rpc) the status line is never shown: skip computing its text.
    if (!hasUI(this.ctx)) return;
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
          try {
            this.deps.pi.appendEntry(DIAGNOSTIC_ENTRY, { kind: d.kind, detail: d.detail });
          } catch {
            /* out-of-band only */
          }
        }
        break;
      case "error":
        if (extensionConfig().debug)
          console.error(`condense: ${e.where}: ${e.error instanceof Error ? e.error.message : String(e.error)}`);
        break;
      default:
        break;
    }
  }

  private isIdle(): boolean {
    try {
      return this.ctx?.isIdle() ?? false;
    } catch {
      return false;
    }
  }

  /** CAP-SUM-14: spend since this session (re)loaded, keyed by source so consumers overwrite. */
  private emitCost(): void {
    const payload = costSinceLoad(this.client.state.stats, this.costBaseline);
    const key = JSON.stringify(payload);
    if (key === this.lastCostKey) return;
    this.lastCostKey = key;
    try {
      this.deps.pi.events.emit(COST_EVENT, payload);
    } catch {
      /* the bus is best-effort */
    }
  }

  notice(text: string, level: "info" | "warning" | "error" = "info"): void {
    notify(this.ctx, text, level);
  }
}
