/**
 * The setting-changing `/condense` subcommands as one pure function: parse the argument, build the new
 * settings (always through core's normalizeSettings, so unknown keys survive and nothing invalid is
 * stored), and say what changed. The command handler saves the result.
 */
import { normalizeSettings, THINKING_LEVELS, type CondenseSettings } from "@condense/core";

export type SettingChange = { ok: true; settings: CondenseSettings; message: string } | { ok: false; message: string };

const LIST_CLEAR = new Set(["none", "clear", "-"]);

function parseList(args: string): string[] {
  const t = args.trim();
  if (LIST_CLEAR.has(t.toLowerCase())) return [];
  return t.split(/[\s,]+/).filter((x) => x.length > 0);
}

/** "0.8", "80%", "off" -> fraction or null; undefined when unparseable. */
export function parseFraction(arg: string): number | null | undefined {
  const t = arg.trim().toLowerCase();
  if (t === "off" || t === "none" || t === "null") return null;
  const pct = t.endsWith("%");
  const n = Number(pct ? t.slice(0, -1) : t);
  if (!Number.isFinite(n)) return undefined;
  const f = pct || n > 1 ? n / 100 : n;
  return f > 0 && f <= 1 ? f : undefined;
}

const pct = (f: number | null) => (f === null ? "off" : `${Math.round(f * 1000) / 10}%`);

export function applySettingCommand(current: CondenseSettings, sub: string, rawArgs: string): SettingChange {
  const args = rawArgs.trim();
  const next = (patch: Record<string, unknown>) => normalizeSettings({ ...current, ...patch });
  switch (sub) {
    case "on":
    case "off":
      return { ok: true, settings: next({ enabled: sub === "on" }), message: `condense: ${sub === "on" ? "ON" : "OFF"}` };
    case "model": {
      if (!args) return { ok: false, message: `condense: summarizer model is ${current.summarizerModel} (set with /condense model provider/id[:thinking] or default)` };
      let model = args;
      let thinking: string | undefined;
      const colon = args.lastIndexOf(":");
      if (colon > 0) {
        const suffix = args.slice(colon + 1);
        if (!(THINKING_LEVELS as readonly string[]).includes(suffix)) return { ok: false, message: `condense: "${suffix}" is not a thinking level (${THINKING_LEVELS.join(", ")})` };
        model = args.slice(0, colon);
        thinking = suffix;
      }
      if (model !== "default" && !/^[^/\s]+\/\S+$/.test(model)) return { ok: false, message: "condense: the model must be provider/id or default" };
      const s = next({ summarizerModel: model, ...(thinking ? { summarizerThinking: thinking } : {}) });
      return { ok: true, settings: s, message: `condense: summarizer model ${s.summarizerModel}${thinking ? ` (thinking ${thinking})` : ""}` };
    }
    case "thresholds": {
      if (!args) return { ok: false, message: `condense: budget ${pct(current.autoBudgetThreshold)}, turn delta ${pct(current.budgetTurnDelta)} (set with /condense thresholds <budget|off> [delta|off])` };
      const [b, d] = args.split(/\s+/);
      const budget = parseFraction(b ?? "");
      const delta = d === undefined ? current.budgetTurnDelta : parseFraction(d);
      if (budget === undefined || delta === undefined) return { ok: false, message: "condense: thresholds are fractions in (0, 1], percentages, or off" };
      const s = next({ autoBudgetThreshold: budget, budgetTurnDelta: delta });
      return { ok: true, settings: s, message: `condense: budget ${pct(s.autoBudgetThreshold)}, turn delta ${pct(s.budgetTurnDelta)}` };
    }
    case "protected-tools": {
      if (!args) return { ok: false, message: `condense: protected tools: ${current.protectedTools.join(", ") || "none"}` };
      const s = next({ protectedTools: parseList(args) });
      return { ok: true, settings: s, message: `condense: protected tools: ${s.protectedTools.join(", ") || "none"}` };
    }
    case "protected-paths": {
      if (!args) return { ok: false, message: `condense: protected paths: ${current.protectedPaths.join(", ") || "none"}` };
      const s = next({ protectedPaths: parseList(args) });
      return { ok: true, settings: s, message: `condense: protected paths: ${s.protectedPaths.join(", ") || "none"}` };
    }
    case "dedup": {
      const a = args.toLowerCase();
      if (!a || a === "status") return { ok: false, message: `condense: dedup ${current.dedupByContentHash ? "on" : "off"}, scope ${current.dedupScope}` };
      if (a === "on" || a === "true") return { ok: true, settings: next({ dedupByContentHash: true }), message: "condense: dedup on" };
      if (a === "off" || a === "false") return { ok: true, settings: next({ dedupByContentHash: false }), message: "condense: dedup off" };
      if (a === "session" || a === "tenant") return { ok: true, settings: next({ dedupScope: a }), message: `condense: dedup scope ${a}` };
      return { ok: false, message: "condense: /condense dedup on|off|session|tenant|status" };
    }
    default:
      return { ok: false, message: `condense: unknown setting "${sub}"` };
  }
}
