/**
 * Checking a settings patch a person typed (a `/condense` command, the CLI's `--settings`), before it
 * is applied. `normalizeSettings` never refuses anything on purpose: stored settings keep unknown keys
 * and fall back to defaults for bad values, so an old file always loads. A person typing a setting needs
 * the opposite: `minBachChars` or `enabled: "yes"` silently dropped would look applied and not be. So a
 * patch is checked key by key against the settings Condense has, and every problem names the key, what
 * is valid, and for an unknown key the closest known one and the full list.
 */
import { isObject } from "./messages.ts";
import { DEFAULT_SETTINGS, THINKING_LEVELS } from "./settings.ts";

type Check = (v: unknown) => string | null;

const bool: Check = (v) => (typeof v === "boolean" ? null : "a boolean (true or false)");
const nonNegInt: Check = (v) =>
  typeof v === "number" && Number.isInteger(v) && v >= 0 ? null : "a non-negative integer";
const posInt: Check = (v) => (typeof v === "number" && Number.isInteger(v) && v > 0 ? null : "a positive integer");
const fractionOrNull: Check = (v) =>
  v === null || (typeof v === "number" && v > 0 && v <= 1) ? null : "a fraction in (0, 1] or null (off)";
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? null : `one of ${values.join(", ")}`;
const strings: Check = (v) => (Array.isArray(v) && v.every((x) => typeof x === "string") ? null : "a list of strings");
const MODEL = /^[^/\s]+\/\S+$/;
const model: Check = (v) =>
  v === "default" || (typeof v === "string" && MODEL.test(v)) ? null : `"default" or provider/id`;
const modelOrNull: Check = (v) =>
  v === null || (typeof v === "string" && MODEL.test(v)) ? null : "provider/id or null (none)";

/** What each setting accepts, as normalizeSettings reads it. */
export const SETTING_CHECKS: Readonly<Record<string, Check>> = {
  enabled: bool,
  showStatusLine: bool,
  summarizerModel: model,
  summarizerFallbackModel: modelOrNull,
  summarizerThinking: oneOf(THINKING_LEVELS),
  summarizerIdleTimeoutMs: nonNegInt,
  summarizerMaxTimeoutMs: nonNegInt,
  pruneOn: oneOf(["agent-message", "on-demand"]),
  batchingMode: oneOf(["turn", "agent-message"]),
  quietOversizedSkips: bool,
  minBatchChars: nonNegInt,
  recoveryGraceTurns: nonNegInt,
  protectedTools: strings,
  protectedPaths: strings,
  dedupByContentHash: bool,
  dedupScope: oneOf(["session", "tenant"]),
  autoBudgetThreshold: fractionOrNull,
  budgetTurnDelta: fractionOrNull,
  spillThreshold: posInt,
  spillPreviewBytes: nonNegInt,
  "chainCompression.enabled": bool,
  "chainCompression.rollingWindow": nonNegInt,
  "chainCompression.stripFinalAssistantThinking": bool,
  "chainCompression.fuseRangeSummary": bool,
  "purgeErrors.enabled": bool,
  "purgeErrors.cooldownTurns": posInt,
  "purgeErrors.minArgChars": nonNegInt,
  flushPolicy: oneOf(["roi", "eager"]),
  shadowMode: bool,
  cacheTtlMs: posInt,
};

const NESTED = new Set(
  Object.keys(DEFAULT_SETTINGS).filter((k) => isObject((DEFAULT_SETTINGS as Record<string, unknown>)[k])),
);

/** Every settable key, nested ones as `parent.child`. */
export const SETTING_KEYS: readonly string[] = Object.keys(SETTING_CHECKS);

export interface SettingIssue {
  key: string;
  kind: "unknown" | "invalid";
  message: string;
  /** The closest known key, for an unknown one. */
  suggestion?: string;
}

export type SettingsPatchCheck =
  | { ok: true; patch: Record<string, unknown> }
  | { ok: false; issues: SettingIssue[]; message: string };

/** Levenshtein distance, case-insensitive (a typed `MinBatchChars` is the same key). */
export function editDistance(a: string, b: string): number {
  const s = a.toLowerCase(),
    t = b.toLowerCase();
  let prev = Array.from({ length: t.length + 1 }, (_, j) => j);
  for (let i = 1; i <= s.length; i++) {
    const row = [i];
    for (let j = 1; j <= t.length; j++)
      row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (s[i - 1] === t[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[t.length]!;
}

/**
 * The closest candidate within a distance that still reads as a typo (a third of the longer name), or
 * one that contains the input or is contained by it ("budget" -> "autoBudgetThreshold"); else undefined.
 */
export function closestName(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestD = Infinity;
  for (const c of candidates) {
    const d = editDistance(input, c);
    if (d < bestD) {
      bestD = d;
      best = c;
    }
  }
  if (best !== undefined && bestD <= Math.max(2, Math.floor(Math.max(input.length, best.length) / 3))) return best;
  const lower = input.toLowerCase();
  return lower.length >= 4
    ? candidates.find((c) => c.toLowerCase().includes(lower) || lower.includes(c.toLowerCase()))
    : undefined;
}

/** "unknown setting "x" (did you mean "y"?)". */
export function unknownNameMessage(what: string, input: string, candidates: readonly string[]): string {
  const near = closestName(input, candidates);
  return `unknown ${what} "${input}"${near ? ` (did you mean "${near}"?)` : ""}; valid: ${candidates.join(", ")}`;
}

/**
 * Check a patch: every key must be a setting (nested objects checked field by field) with a valid
 * value. A valid patch comes back unchanged, for `normalizeSettings({...current, ...patch})` (nested
 * objects are deep-merged there).
 */
export function validateSettingsPatch(patch: unknown): SettingsPatchCheck {
  if (!isObject(patch))
    return { ok: false, issues: [], message: 'settings must be a JSON object, e.g. {"minBatchChars": 500}' };
  const issues: SettingIssue[] = [];
  const topKeys = SETTING_KEYS.filter((k) => !NESTED.has(k.split(".")[0]!)).concat([...NESTED]);
  for (const [key, value] of Object.entries(patch)) {
    if (NESTED.has(key)) {
      if (!isObject(value)) {
        issues.push({
          key,
          kind: "invalid",
          message: `${key} must be an object with ${SETTING_KEYS.filter((k) => k.startsWith(`${key}.`)).join(", ")}`,
        });
        continue;
      }
      const children = SETTING_KEYS.filter((k) => k.startsWith(`${key}.`));
      for (const [child, v] of Object.entries(value)) checkOne(`${key}.${child}`, v, children, issues);
      continue;
    }
    checkOne(key, value, topKeys, issues);
  }
  if (issues.length === 0) return { ok: true, patch };
  return { ok: false, issues, message: issues.map((i) => i.message).join("\n") };
}

function checkOne(key: string, value: unknown, candidates: readonly string[], issues: SettingIssue[]): void {
  const check = SETTING_CHECKS[key];
  if (!check) {
    // Offer nested names too: `rollingWindow` typed at the top level means chainCompression.rollingWindow.
    const suggestion = closestName(key, candidates) ?? closestName(key, SETTING_KEYS);
    const near = suggestion ? ` (did you mean "${suggestion}"?)` : "";
    issues.push({
      key,
      kind: "unknown",
      message: `unknown setting "${key}"${near}; valid: ${candidates.join(", ")}`,
      ...(suggestion ? { suggestion } : {}),
    });
    return;
  }
  const wanted = check(value);
  if (wanted) issues.push({ key, kind: "invalid", message: `${key} must be ${wanted}, got ${JSON.stringify(value)}` });
}
