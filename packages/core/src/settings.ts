/**
 * Session settings (CAP-CFG-2/3): defaults and `normalizeSettings`, which keeps unknown keys so they
 * round-trip through load and save. Nested objects are normalized field by field here (pi-condense
 * replaced them wholesale and lost defaults, CAP-LIMIT-16; Condense deep-merges on purpose).
 */
import { isObject } from "./messages.ts";

export const THINKING_LEVELS = ["default", "off", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ThinkingLevel = (typeof THINKING_LEVELS)[number];
export type DedupScope = "session" | "tenant";
export const FLUSH_POLICIES = ["roi", "eager"] as const;
export type FlushPolicy = (typeof FLUSH_POLICIES)[number];

export interface CondenseSettings {
  enabled: boolean;
  showStatusLine: boolean;
  summarizerModel: string;
  summarizerFallbackModel: string | null;
  summarizerThinking: ThinkingLevel;
  summarizerIdleTimeoutMs: number;
  summarizerMaxTimeoutMs: number;
  pruneOn: "agent-message" | "on-demand";
  batchingMode: "turn" | "agent-message";
  quietOversizedSkips: boolean;
  minBatchChars: number;
  recoveryGraceTurns: number;
  protectedTools: string[];
  protectedPaths: string[];
  dedupByContentHash: boolean;
  dedupScope: DedupScope;
  autoBudgetThreshold: number | null;
  budgetTurnDelta: number | null;
  /** Results at least this long are stored out of line and stubbed without a summary (CAP-SPILL). */
  spillThreshold: number;
  spillPreviewBytes: number;
  chainCompression: {
    enabled: boolean;
    rollingWindow: number;
    stripFinalAssistantThinking: boolean;
    fuseRangeSummary: boolean;
  };
  purgeErrors: { enabled: boolean; cooldownTurns: number; minArgChars: number };
  /** `roi`: flush when its net value is positive (economics/roi-policy.ts); `eager`: on every text reply (CAP-TRIGGER-3). */
  flushPolicy: FlushPolicy;
  /** Capture, summarize and render as usual, but send the raw context and only report what would have been saved. */
  shadowMode: boolean;
  /** How long the provider's cache keeps a prefix between requests; a longer gap makes the next request cold. */
  cacheTtlMs: number;
  [unknownKey: string]: unknown;
}

export const DEFAULT_SETTINGS: Readonly<CondenseSettings> = Object.freeze({
  enabled: true,
  showStatusLine: true,
  summarizerModel: "default",
  summarizerFallbackModel: null,
  summarizerThinking: "default",
  summarizerIdleTimeoutMs: 20_000,
  summarizerMaxTimeoutMs: 180_000,
  pruneOn: "agent-message",
  batchingMode: "turn",
  quietOversizedSkips: false,
  minBatchChars: 1000,
  recoveryGraceTurns: 3,
  protectedTools: [],
  protectedPaths: ["**/skills/**/*.md"],
  dedupByContentHash: true,
  dedupScope: "session",
  autoBudgetThreshold: null,
  budgetTurnDelta: null,
  spillThreshold: 65_536,
  spillPreviewBytes: 2048,
  chainCompression: { enabled: true, rollingWindow: 3, stripFinalAssistantThinking: true, fuseRangeSummary: true },
  purgeErrors: { enabled: true, cooldownTurns: 2, minArgChars: 500 },
  flushPolicy: "roi",
  shadowMode: false,
  cacheTtlMs: 300_000,
}) as CondenseSettings;

const bool = (v: unknown, d: boolean) => (typeof v === "boolean" ? v : d);
const nonNegInt = (v: unknown, d: number) =>
  typeof v === "number" && Number.isFinite(v) && v >= 0 ? Math.floor(v) : d;
const posInt = (v: unknown, d: number) => (typeof v === "number" && Number.isFinite(v) && v > 0 ? Math.floor(v) : d);
const fraction = (v: unknown) => (typeof v === "number" && Number.isFinite(v) && v > 0 && v <= 1 ? v : null);
const strList = (v: unknown, d: string[]) =>
  Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : d.slice();

/** Never throws; anything invalid falls back to its default. */
export function normalizeSettings(stored: unknown): CondenseSettings {
  const s = isObject(stored) ? stored : {};
  const d = DEFAULT_SETTINGS;
  const cc = isObject(s.chainCompression) ? s.chainCompression : {};
  const pe = isObject(s.purgeErrors) ? s.purgeErrors : {};
  return {
    ...s,
    enabled: bool(s.enabled, d.enabled),
    showStatusLine: bool(s.showStatusLine, d.showStatusLine),
    summarizerModel:
      typeof s.summarizerModel === "string" && s.summarizerModel.trim() ? s.summarizerModel.trim() : d.summarizerModel,
    summarizerFallbackModel:
      typeof s.summarizerFallbackModel === "string" && s.summarizerFallbackModel.trim()
        ? s.summarizerFallbackModel.trim()
        : null,
    summarizerThinking: (THINKING_LEVELS as readonly unknown[]).includes(s.summarizerThinking)
      ? (s.summarizerThinking as ThinkingLevel)
      : d.summarizerThinking,
    summarizerIdleTimeoutMs: nonNegInt(s.summarizerIdleTimeoutMs, d.summarizerIdleTimeoutMs),
    summarizerMaxTimeoutMs: nonNegInt(s.summarizerMaxTimeoutMs, d.summarizerMaxTimeoutMs),
    pruneOn: s.pruneOn === "on-demand" ? "on-demand" : "agent-message",
    batchingMode: s.batchingMode === "agent-message" ? "agent-message" : "turn",
    quietOversizedSkips: bool(s.quietOversizedSkips, d.quietOversizedSkips),
    minBatchChars: nonNegInt(s.minBatchChars, d.minBatchChars),
    recoveryGraceTurns: nonNegInt(s.recoveryGraceTurns, d.recoveryGraceTurns),
    protectedTools: strList(s.protectedTools, d.protectedTools),
    protectedPaths: strList(s.protectedPaths, d.protectedPaths),
    dedupByContentHash: bool(s.dedupByContentHash, d.dedupByContentHash),
    dedupScope: s.dedupScope === "tenant" ? "tenant" : "session",
    autoBudgetThreshold: fraction(s.autoBudgetThreshold),
    budgetTurnDelta: fraction(s.budgetTurnDelta),
    spillThreshold: posInt(s.spillThreshold, d.spillThreshold),
    spillPreviewBytes: nonNegInt(s.spillPreviewBytes, d.spillPreviewBytes),
    chainCompression: {
      ...cc,
      enabled: bool(cc.enabled, d.chainCompression.enabled),
      rollingWindow: nonNegInt(cc.rollingWindow, d.chainCompression.rollingWindow),
      stripFinalAssistantThinking: bool(cc.stripFinalAssistantThinking, d.chainCompression.stripFinalAssistantThinking),
      fuseRangeSummary: bool(cc.fuseRangeSummary, d.chainCompression.fuseRangeSummary),
    },
    flushPolicy: s.flushPolicy === "eager" ? "eager" : "roi",
    shadowMode: bool(s.shadowMode, d.shadowMode),
    cacheTtlMs: posInt(s.cacheTtlMs, d.cacheTtlMs),
    purgeErrors: {
      ...pe,
      enabled: bool(pe.enabled, d.purgeErrors.enabled),
      cooldownTurns: posInt(pe.cooldownTurns, d.purgeErrors.cooldownTurns),
      minArgChars: nonNegInt(pe.minArgChars, d.purgeErrors.minArgChars),
    },
  };
}
