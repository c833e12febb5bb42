/**
 * `/condense` and its subcommands (CAP-UX-4, with every setting pi-condense's `/pruner` had): status,
 * stats, settings, now, compact, help, and the setting commands of settings-commands.ts. Setting
 * changes are checked by core's validateSettingsPatch, saved at once to pi's settings file and applied
 * to the running client. A mistyped command or setting is an error that names the valid ones. Commands
 * never reach the LLM and work headless (`pi -p "/condense status"`): without a UI their output goes to
 * stderr.
 */
import type { ExtensionAPI, ExtensionCommandContext } from "@mariozechner/pi-coding-agent";
import { normalizeSettings, unknownNameMessage } from "@condense/core";
import type { CondenseSession } from "./condense-session.ts";
import { applySettingCommand, SETTING_SUBCOMMANDS } from "./settings-commands.ts";
import { saveSettings } from "./settings-store.ts";
import { settingsReport, statsReport, statusReport, summarizedByFromStatus } from "./status-report.ts";
import { notify } from "./ui-guard.ts";

export const SUBCOMMANDS = ["status", "stats", "settings", "now", "compact", "help", ...SETTING_SUBCOMMANDS] as const;

const HELP = [
  "/condense status            settings, summarizer totals and the context metrics",
  "/condense stats             summarizer calls, tokens and cost",
  "/condense now               condense everything pending now",
  "/condense compact           compress every closed chain now (no rolling window)",
  "/condense on | off          enable or disable",
  "/condense settings           every setting and its value",
  "/condense model [provider/id[:thinking] | default]",
  "/condense fallback-model [provider/id | none]",
  "/condense thinking [default|off|minimal|low|medium|high|xhigh]",
  "/condense timeouts [idle] [max]   e.g. 20s 180s; 0 or off disables",
  "/condense prune-on [agent-message | on-demand]",
  "/condense batching [turn | agent-message]",
  "/condense min-batch-chars [n]     0 disables the trivial skip",
  "/condense recovery-grace [n]      turns a recovered output stays raw; 0 disables",
  "/condense thresholds [budget|off] [delta|off]   e.g. 0.8 0.1, or 80% 10%",
  "/condense protected-tools [a, b | none]",
  "/condense protected-paths [glob, ... | none]",
  "/condense dedup [on | off | session | tenant]",
  "/condense set <key> <value>   any setting, e.g. set chainCompression.rollingWindow 2",
].join("\n");

export function registerCommands(
  pi: ExtensionAPI,
  session: () => CondenseSession | undefined,
  connectionLabel: () => string,
): void {
  pi.registerCommand("condense", {
    description: "Condense: status, stats, settings, now, compact, on/off and every setting (see /condense help)",
    getArgumentCompletions: (prefix: string) =>
      SUBCOMMANDS.filter((c) => c.startsWith(prefix.trim())).map((c) => ({ value: c, label: c })),
    handler: async (args: string, ctx: ExtensionCommandContext) => {
      const s = session();
      const [sub = "status", ...rest] = args.trim().split(/\s+/).filter(Boolean);
      const restText = rest.join(" ");
      if (!(SUBCOMMANDS as readonly string[]).includes(sub))
        return notify(ctx, `condense: ${unknownNameMessage("command", sub, SUBCOMMANDS)}`, "error");
      if (!s) return notify(ctx, "condense: not started for this session yet", "warning");
      s.ctx = ctx;
      const client = s.client;
      switch (sub) {
        case "help":
          return notify(ctx, HELP);
        case "status": {
          const branch = s.branch();
          const metrics = client.refreshMetrics(branch);
          // The model that summarized is the service's record (flush metrics); status stays local if it is unreachable.
          const remote = await client.status().catch(() => null);
          return notify(
            ctx,
            statusReport({
              summarizedBy: remote ? summarizedByFromStatus(remote) : undefined,
              settings: client.settings,
              connection: connectionLabel(),
              stats: client.state.stats,
              metrics,
              rearmed: client.trigger.rearmed,
              pendingTurns: client.trigger.pendingCount,
              stateVersion: client.state.version,
              outbox: client.outboxSize,
              degraded: client.degraded,
            }),
          );
        }
        case "stats":
          return notify(ctx, statsReport(client.state.stats));
        case "settings":
          return notify(ctx, settingsReport(client.settings));
        case "now": {
          const usage = ctx.getContextUsage();
          const d = client.flushNow(
            s.branch(),
            usage ? { tokens: usage.tokens, contextWindow: usage.contextWindow } : null,
          );
          if (d.notice) notify(ctx, d.notice, d.flush ? "info" : "warning");
          if (d.flush && d.captured > 0) notify(ctx, `condense: condensing ${d.captured} batch(es) in the background`);
          return;
        }
        case "compact": {
          // K = 0 and compression on, for this one request; the next flush sends the saved settings again.
          const saved = client.settings;
          client.updateSettings({
            ...saved,
            chainCompression: { ...saved.chainCompression, enabled: true, rollingWindow: 0 },
          });
          try {
            client.flushNow(s.branch(), null);
          } finally {
            client.updateSettings(saved);
          }
          return notify(ctx, "condense: compacting every closed chain in the background");
        }
        default: {
          const change = applySettingCommand(client.settings, sub, restText);
          // A bare command shows the current value; with an argument a refusal is an error.
          if (!change.ok) return notify(ctx, change.message, restText ? "error" : "info");
          const saved = normalizeSettings(change.settings);
          try {
            saveSettings(saved);
          } catch (err) {
            notify(
              ctx,
              `condense: could not save settings: ${err instanceof Error ? err.message : String(err)}`,
              "error",
            );
          }
          client.updateSettings(saved);
          s.refreshFooter();
          return notify(ctx, change.message);
        }
      }
    },
  });
}
