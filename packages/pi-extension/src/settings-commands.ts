/**
 * The setting-changing `/condense` subcommands as one pure function: parse the argument, build the new
 * settings (always through core's normalizeSettings, so unknown keys survive and nothing invalid is
 * stored), and say what changed. The command handler saves the result.
 */
import {
  normalizeSettings,
  SETTING_KEYS,
  THINKING_LEVELS,
  unknownNameMessage,
  validateSettingsPatch,
  type CondenseSettings,
} from "@condense/core";

/** The subcommands that change a setting (the command handler's own ones are in commands.ts). */
export const SETTING_SUBCOMMANDS = [
  "on",
  "off",
  "model",
  "fallback-model",
  "thinking",
  "timeouts",
  "prune-on",
  "batching",
  "min-batch-chars",
  "recovery-grace",
  "thresholds",
  "protected-tools",
  "protected-paths",
  "dedup",
  "set",
] as const;

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
const secs = (ms: number) => (ms > 0 ? `${Math.round(ms / 100) / 10}s` : "off");

/** "0", "off" -> 0 (disabled); "20", "20s" -> 20000; "1500ms" -> 1500; "2m" -> 120000; undefined when unparseable. */
export function parseDurationMs(arg: string): number | undefined {
  const t = arg.trim().toLowerCase();
  if (t === "off" || t === "none" || t === "0") return 0;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)?$/.exec(t);
  if (!m) return undefined;
  const n = Number(m[1]);
  const ms = m[2] === "ms" ? n : m[2] === "m" ? n * 60_000 : n * 1000;
  return Number.isFinite(ms) ? Math.round(ms) : undefined;
}

/** A non-negative integer argument ("0" disables); undefined when it is not one. */
function parseCount(arg: string): number | undefined {
  const t = arg.trim();
  return /^\d+$/.test(t) ? Number(t) : undefined;
}

/** `set <key> <value>`: the value as JSON when it parses (numbers, booleans, null, lists), else the text. */
export function parseSetArgs(
  args: string,
): { ok: true; patch: Record<string, unknown> } | { ok: false; message: string } {
  const m = /^(\S+)\s+([\s\S]+)$/.exec(args.trim());
  if (!m)
    return {
      ok: false,
      message: `condense: /condense set <key> <value>, e.g. /condense set minBatchChars 500; keys: ${SETTING_KEYS.join(", ")}`,
    };
  const [, key, raw] = m as unknown as [string, string, string];
  let value: unknown = raw.trim();
  try {
    value = JSON.parse(raw);
  } catch {
    /* a bare word stays a string */
  }
  const [top, child] = key.split(".", 2) as [string, string | undefined];
  return { ok: true, patch: child === undefined ? { [top]: value } : { [top]: { [child]: value } } };
}

export function applySettingCommand(current: CondenseSettings, sub: string, rawArgs: string): SettingChange {
  const args = rawArgs.trim();
  const next = (patch: Record<string, unknown>) => normalizeSettings({ ...current, ...patch });
  /** A patch checked by core first, so nothing invalid is stored as if it had been applied. */
  const checked = (patch: Record<string, unknown>, say: (s: CondenseSettings) => string): SettingChange => {
    const v = validateSettingsPatch(patch);
    if (!v.ok) return { ok: false, message: `condense: ${v.message}` };
    const merged: Record<string, unknown> = { ...current };
    for (const [k, val] of Object.entries(patch)) {
      const cur = merged[k];
      merged[k] =
        val && typeof val === "object" && !Array.isArray(val) && cur && typeof cur === "object"
          ? { ...cur, ...val }
          : val;
    }
    const s = normalizeSettings(merged);
    return { ok: true, settings: s, message: say(s) };
  };
  switch (sub) {
    case "on":
    case "off":
      return {
        ok: true,
        settings: next({ enabled: sub === "on" }),
        message: `condense: ${sub === "on" ? "ON" : "OFF"}`,
      };
    case "model": {
      if (!args)
        return {
          ok: false,
          message: `condense: summarizer model is ${current.summarizerModel} (set with /condense model provider/id[:thinking] or default)`,
        };
      let model = args;
      let thinking: string | undefined;
      const colon = args.lastIndexOf(":");
      if (colon > 0) {
        const suffix = args.slice(colon + 1);
        if (!(THINKING_LEVELS as readonly string[]).includes(suffix))
          return {
            ok: false,
            message: `condense: "${suffix}" is not a thinking level (${THINKING_LEVELS.join(", ")})`,
          };
        model = args.slice(0, colon);
        thinking = suffix;
      }
      if (model !== "default" && !/^[^/\s]+\/\S+$/.test(model))
        return { ok: false, message: "condense: the model must be provider/id or default" };
      const s = next({ summarizerModel: model, ...(thinking ? { summarizerThinking: thinking } : {}) });
      return {
        ok: true,
        settings: s,
        message: `condense: summarizer model ${s.summarizerModel}${thinking ? ` (thinking ${thinking})` : ""}`,
      };
    }
    case "thresholds": {
      if (!args)
        return {
          ok: false,
          message: `condense: budget ${pct(current.autoBudgetThreshold)}, turn delta ${pct(current.budgetTurnDelta)} (set with /condense thresholds <budget|off> [delta|off])`,
        };
      const [b, d] = args.split(/\s+/);
      const budget = parseFraction(b ?? "");
      const delta = d === undefined ? current.budgetTurnDelta : parseFraction(d);
      if (budget === undefined || delta === undefined)
        return { ok: false, message: "condense: thresholds are fractions in (0, 1], percentages, or off" };
      const s = next({ autoBudgetThreshold: budget, budgetTurnDelta: delta });
      return {
        ok: true,
        settings: s,
        message: `condense: budget ${pct(s.autoBudgetThreshold)}, turn delta ${pct(s.budgetTurnDelta)}`,
      };
    }
    case "protected-tools": {
      if (!args)
        return { ok: false, message: `condense: protected tools: ${current.protectedTools.join(", ") || "none"}` };
      const s = next({ protectedTools: parseList(args) });
      return { ok: true, settings: s, message: `condense: protected tools: ${s.protectedTools.join(", ") || "none"}` };
    }
    case "protected-paths": {
      if (!args)
        return { ok: false, message: `condense: protected paths: ${current.protectedPaths.join(", ") || "none"}` };
      const s = next({ protectedPaths: parseList(args) });
      return { ok: true, settings: s, message: `condense: protected paths: ${s.protectedPaths.join(", ") || "none"}` };
    }
    case "dedup": {
      const a = args.toLowerCase();
      if (!a || a === "status")
        return {
          ok: false,
          message: `condense: dedup ${current.dedupByContentHash ? "on" : "off"}, scope ${current.dedupScope}`,
        };
      if (a === "on" || a === "true")
        return { ok: true, settings: next({ dedupByContentHash: true }), message: "condense: dedup on" };
      if (a === "off" || a === "false")
        return { ok: true, settings: next({ dedupByContentHash: false }), message: "condense: dedup off" };
      if (a === "session" || a === "tenant")
        return { ok: true, settings: next({ dedupScope: a }), message: `condense: dedup scope ${a}` };
      return { ok: false, message: "condense: /condense dedup on|off|session|tenant|status" };
    }
    case "fallback-model": {
      if (!args)
        return {
          ok: false,
          message: `condense: fallback model is ${current.summarizerFallbackModel ?? "none"} (set with /condense fallback-model provider/id or none)`,
        };
      const value = LIST_CLEAR.has(args.toLowerCase()) || args.toLowerCase() === "off" ? null : args;
      return checked(
        { summarizerFallbackModel: value },
        (s) => `condense: fallback model ${s.summarizerFallbackModel ?? "none"}`,
      );
    }
    case "thinking": {
      if (!args)
        return {
          ok: false,
          message: `condense: summarizer thinking is ${current.summarizerThinking} (one of ${THINKING_LEVELS.join(", ")})`,
        };
      return checked(
        { summarizerThinking: args.toLowerCase() },
        (s) => `condense: summarizer thinking ${s.summarizerThinking}`,
      );
    }
    case "timeouts": {
      if (!args)
        return {
          ok: false,
          message: `condense: idle timeout ${secs(current.summarizerIdleTimeoutMs)}, max timeout ${secs(current.summarizerMaxTimeoutMs)} (set with /condense timeouts <idle> [max], e.g. 20s 180s; 0 or off disables)`,
        };
      const [i, m] = args.split(/\s+/);
      const idle = parseDurationMs(i ?? "");
      const max = m === undefined ? current.summarizerMaxTimeoutMs : parseDurationMs(m);
      if (idle === undefined || max === undefined)
        return { ok: false, message: "condense: timeouts are durations: 20s, 1500ms, 2m, or 0/off to disable" };
      return checked(
        { summarizerIdleTimeoutMs: idle, summarizerMaxTimeoutMs: max },
        (s) =>
          `condense: idle timeout ${secs(s.summarizerIdleTimeoutMs)}, max timeout ${secs(s.summarizerMaxTimeoutMs)}`,
      );
    }
    case "prune-on": {
      if (!args)
        return { ok: false, message: `condense: condensing ${current.pruneOn} (one of agent-message, on-demand)` };
      return checked(
        { pruneOn: args.toLowerCase() },
        (s) =>
          `condense: condensing ${s.pruneOn === "on-demand" ? "on demand (/condense now)" : "on the agent's text reply"}`,
      );
    }
    case "batching": {
      if (!args)
        return { ok: false, message: `condense: batching ${current.batchingMode} (one of turn, agent-message)` };
      return checked({ batchingMode: args.toLowerCase() }, (s) => `condense: batching ${s.batchingMode}`);
    }
    case "min-batch-chars":
    case "recovery-grace": {
      const key = sub === "min-batch-chars" ? "minBatchChars" : "recoveryGraceTurns";
      if (!args)
        return {
          ok: false,
          message: `condense: ${sub} is ${current[key] as number} (a non-negative integer; 0 disables)`,
        };
      const n = parseCount(args);
      if (n === undefined)
        return { ok: false, message: `condense: ${sub} must be a non-negative integer (0 disables), got "${args}"` };
      return checked({ [key]: n }, (s) => `condense: ${sub} ${s[key] as number}`);
    }
    case "set": {
      const parsed = parseSetArgs(args);
      if (!parsed.ok) return parsed;
      const [key] = Object.keys(parsed.patch);
      return checked(parsed.patch, (s) => `condense: ${key} = ${JSON.stringify(s[key!])}`);
    }
    default:
      return { ok: false, message: `condense: ${unknownNameMessage("setting command", sub, SETTING_SUBCOMMANDS)}` };
  }
}
