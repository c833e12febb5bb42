/**
 * Condense for pi: a thin adapter from pi's extension events to @condense/client.
 *   turn_end          -> capture the finished tool calls; budget / delta / rearmed triggers
 *   message_end       -> the reply trigger (a text-only assistant message), turn numbering
 *   context           -> apply a staged state delta at this safe boundary, then render (no network)
 *   tool_result       -> steer newly condensed summaries into the next LLM call of this run
 *   before_agent_start / agent_end -> deliver summaries while idle; the agent_end notice
 *   session_start / session_tree -> rebuild, sync, resend unacknowledged captures, rearm probe
 *   before_provider_request -> the client's background work (sends, flush builds) runs once this request is on the wire
 * plus the context_tree_query tool, the /condense command and the footer status line.
 * Load with `pi -e <this package>` or `pi install <this package>`.
 */
import type { ExtensionAPI, ExtensionContext } from "@mariozechner/pi-coding-agent";
import { agentEndStatus, isAssistant, type AgentMessage } from "@condense/core";
import { registerCommands } from "./commands.ts";
import { CondenseSession } from "./condense-session.ts";
import { connectionFromEnv } from "./connection-config.ts";
import { extensionConfig } from "./extension-config.ts";
import { localHost } from "./local-service-launch.ts";
import { ModelWait } from "./model-wait.ts";
import { watchRequestsOnWire } from "./request-on-wire.ts";
import { registerQueryTool } from "./query-tool.ts";
import { resolveSessionLink, SESSION_LINK_ENTRY } from "./session-lineage.ts";
import { loadSettings } from "./settings-store.ts";
import { migrateLegacySpools, spoolPath } from "./spool-location.ts";
import { hasUI, notify } from "./ui-guard.ts";

export { COST_EVENT, DIAGNOSTIC_ENTRY } from "./condense-session.ts";

export default function condense(pi: ExtensionAPI): void {
  const connection = connectionFromEnv();
  // The client's sends and flush builds wait for pi's next LLM request to be out (model-wait.ts).
  const modelWait = new ModelWait();
  let unwatchRequests: (() => void) | null = null;
  let session: CondenseSession | undefined;
  const current = () => session;

  /** Creates the session's client at once; returns the background reload (sync, resend, rearm). */
  function open(ctx: ExtensionContext): Promise<void> {
    const sm = ctx.sessionManager;
    // A fork continues its parent's Condense session (session-lineage.ts); the spool stays per file.
    const link = resolveSessionLink(ctx);
    const sessionId = link.sessionId;
    if (link.unrecorded) {
      try {
        pi.appendEntry(SESSION_LINK_ENTRY, { sessionId });
      } catch {
        /* the headers still link it */
      }
    }
    if (!session || session.client.sessionId !== sessionId) {
      const previous = session;
      migrateLegacySpools(sm.getSessionDir());
      session = new CondenseSession(
        {
          pi,
          connection,
          settings: loadSettings(),
          // A service this process must start is started while the model works, not while pi builds its request.
          localHost: (dataDir) => localHost(dataDir, () => new Promise<void>((resolve) => modelWait.schedule(resolve))),
          schedule: modelWait.schedule,
        },
        sessionId,
        spoolPath(sm.getSessionId()),
      );
      void previous?.client.close().catch(() => {});
    } else {
      session.client.updateSettings(loadSettings());
    }
    return session.reload(ctx);
  }

  pi.on("session_start", (_event, ctx) => {
    // Never awaited: the agent does not wait on the service (which may be starting). Captures and
    // flush requests made meanwhile wait in the outbox and the spool; renders before the first sync
    // use the last applied state from the state cache (state-cache-location.ts), or pass the messages through.
    unwatchRequests ??= watchRequestsOnWire(() => modelWait.requestOnWire());
    let reload: Promise<void>;
    try {
      reload = open(ctx);
    } catch (err) {
      notify(ctx, `condense: could not start: ${err instanceof Error ? err.message : String(err)}`, "error");
      return;
    }
    reload.catch((err: unknown) =>
      notify(ctx, `condense: could not start: ${err instanceof Error ? err.message : String(err)}`, "error"),
    );
  });

  pi.on("session_tree", async (_event, ctx) => {
    try {
      await session?.reload(ctx);
    } catch (err) {
      notify(ctx, `condense: reload failed: ${err instanceof Error ? err.message : String(err)}`, "error");
    }
  });

  pi.on("session_shutdown", async () => {
    const s = session;
    session = undefined;
    unwatchRequests?.();
    unwatchRequests = null;
    modelWait.release();
    if (!s) return;
    // Give queued captures and flush requests a moment to reach the service; one that has not answered
    // this process yet (a first start) is not waited for: pi exits at once, the spool keeps the captures
    // for the next process on this session, and its start resends them and rearms the flush. A service
    // that acknowledges items one after another (the backlog of a restart after a crash) is waited for
    // up to the drain's maximum; one that acknowledges nothing for `shutdownDrainMs` is not.
    const config = extensionConfig();
    await s.client
      .drain(config.shutdownDrainMaxMs, { whileReachable: true, idleMs: config.shutdownDrainMs })
      .catch(() => false);
    await s.client.close().catch(() => {});
    // The last applied state's write, so the next process on this session renders with it.
    await s.stateCache?.idle();
  });

  pi.on("model_select", (event, ctx) => {
    const s = session;
    if (!s) return;
    s.ctx = ctx;
    s.syncSummarizer(true, event.model);
  });

  pi.on("context", (event, ctx) => {
    const s = session;
    if (!s) return undefined;
    s.ctx = ctx;
    const messages = event.messages as unknown as AgentMessage[];
    s.client.applyPending(messages);
    const out = s.client.render(messages);
    // Every render overwrites a transient "pending" text with the computed line (CAP-UX-3).
    s.transientStatus = null;
    s.refreshFooter();
    // Shadow mode: `out.messages` is the context without this service's summaries, sent as is.
    return out.pruned || out.shadow ? { messages: out.messages as unknown as typeof event.messages } : undefined;
  });

  // Cold-cache moments the roi flush policy can use: the next request rewrites its prefix anyway.
  pi.on("model_select", () => {
    const s = session;
    s?.client.markCold("model-switch", () => s.branch());
  });
  pi.on("session_compact", () => {
    const s = session;
    s?.client.markCold("host-compaction", () => s.branch());
  });

  pi.on("message_end", (event, ctx) => {
    const s = session;
    if (!s) return;
    s.ctx = ctx;
    const message = event.message as unknown as AgentMessage;
    if (!isAssistant(message)) return;
    s.noteAssistant(message);
    // The context's size only matters when this reply asks for a flush: pi estimates it on demand.
    const d = s.client.messageEnd(
      message,
      () => s.branch(),
      () => {
        const usage = ctx.getContextUsage();
        return usage ? { tokens: usage.tokens, contextWindow: usage.contextWindow } : null;
      },
    );
    if (d.notice) s.notice(d.notice);
  });

  pi.on("turn_end", (event, ctx) => {
    const s = session;
    if (!s) return;
    s.ctx = ctx;
    // A changed summarizerModel setting or an old key: hand the model off again (cheap when unchanged).
    s.syncSummarizer();
    const message = event.message as unknown as AgentMessage;
    const toolResults = event.toolResults as unknown as AgentMessage[];
    const captured =
      toolResults.length > 0
        ? s.client.capture({ message, toolResults, turnIndex: s.turnIndexOf(message) })
        : { pushed: false };
    if (captured.pushed && s.client.settings.showStatusLine)
      s.transientStatus = `condense: ${s.client.trigger.pendingCount} pending`;
    const usage = ctx.getContextUsage();
    const d = s.client.turnEnd({
      toolResultCount: toolResults.length,
      pushedThisTurn: captured.pushed,
      usage: usage ? { tokens: usage.tokens, contextWindow: usage.contextWindow } : null,
      branch: () => s.branch(),
    });
    if (d.notice) s.notice(d.notice);
    if (toolResults.length > 0 && !d.flush && hasUI(ctx)) {
      // Metrics for the footer are recomputed after the turn, off the event path (only when there is a footer).
      setImmediate(() => {
        s.client.refreshMetrics(s.branch());
        s.refreshFooter();
      });
    }
    s.refreshFooter();
  });

  pi.on("before_provider_request", () => {
    modelWait.requestHandedOver();
    return undefined;
  });

  pi.on("tool_result", (_event, ctx) => {
    const s = session;
    if (!s) return undefined;
    s.ctx = ctx;
    // Inline hook during a run: a steer sent now reaches the next LLM call, which the loop makes anyway.
    s.deliver("steer");
    return undefined;
  });

  pi.on("before_agent_start", (_event, ctx) => {
    const s = session;
    if (!s) return undefined;
    s.ctx = ctx;
    s.deliver("append");
    return undefined;
  });

  pi.on("agent_end", (_event, ctx) => {
    // No request follows: what waited for one goes now.
    modelWait.release();
    const s = session;
    if (!s) return;
    s.ctx = ctx;
    let idle = false;
    try {
      idle = ctx.isIdle();
    } catch {
      /* stale ctx */
    }
    if (idle) s.deliver("append");
    const text = agentEndStatus(s.client.settings.enabled, s.client.trigger.pendingCount, s.client.trigger.rearmed);
    s.transientStatus = text;
    s.refreshFooter();
  });

  registerQueryTool(pi, current);
  registerCommands(pi, current, () =>
    connection.mode === "fleet" ? `fleet ${connection.url}` : `local service (${connection.dataDir})`,
  );
}
