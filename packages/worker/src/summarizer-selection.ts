/**
 * Which summarizer a flush uses, per session (issue 16 item 1, CAP-SUM-5):
 * 1. `summarizerModel: "deterministic"`: the extractive summarizer, an explicit choice.
 * 2. A model the session's agent handed off (pi's own model and key, in memory only): its primary and
 *    fallback, with the session's own outage state (CAP-SUM-9).
 * 3. A `provider/id` among the models the operator configured (CONDENSE_SUMMARIZER_MODELS), with the
 *    operator's keys and the fleet-wide breaker.
 * 4. Otherwise the worker's default model, with a notice saying why (shown by the session's status).
 * The session's thinking level and idle/ceiling timeouts apply in every case. Built summarizers are
 * cached: per hand-off (a new hand-off starts a new outage state) and per operator model and settings.
 */
import type { CondenseSettings } from "@condense/core";
import {
  createDeterministicSummarizer,
  createMemoryBreakerStore,
  createSummarizerForModels,
  handedOffToResolved,
  isNoModel,
  resolveModel,
  splitModelRef,
  parseSummarizerConfig,
  type BreakerStore,
  type HandOffEntry,
  type Summarizer,
  type SummarizerConfig,
  type SummarizerConfigInput,
  type SummarizerHandOffStore,
  type SummarizerLogger,
} from "@condense/summarizer";
import type { Registry } from "prom-client";

export type SummarizerSource = "handed-off" | "operator" | "worker-default" | "deterministic";

export interface SelectedSummarizer {
  summarizer: Summarizer;
  source: SummarizerSource;
  /** `provider/id` of the primary, or `deterministic`. */
  primary: string;
  notice?: string;
}

export type SelectSummarizer = (
  key: { tenantId: string; sessionId: string },
  settings: CondenseSettings,
) => SelectedSummarizer;

export interface SelectionDeps {
  /** The worker's summarizer config (its default model, fallback, custom models, keys, retries). */
  config: SummarizerConfigInput;
  /** `provider/id` models sessions may pick; resolved (and so validated) at construction. */
  sessionModels?: readonly string[];
  handOffs?: SummarizerHandOffStore;
  /** The worker's default summarizer when the caller built it (tests, benches): used as is. */
  defaultSummarizer?: Summarizer;
  /** Fleet-wide breaker for operator models (Redis in fleet mode). */
  breakerStore?: BreakerStore;
  registry?: Registry;
  logger?: SummarizerLogger;
  workerId?: string;
}

/** The session settings that change how a summarizer calls its model. */
function sessionTuning(settings: CondenseSettings): Partial<SummarizerConfig> {
  return {
    summarizerThinking: settings.summarizerThinking as SummarizerConfig["summarizerThinking"],
    summarizerIdleTimeoutMs: settings.summarizerIdleTimeoutMs,
    summarizerMaxTimeoutMs: settings.summarizerMaxTimeoutMs,
  };
}

const EXPLICIT_DETERMINISTIC = new Set(["deterministic", "none"]);

export function createSummarizerSelection(deps: SelectionDeps): SelectSummarizer {
  const base = parseSummarizerConfig(deps.config);
  const common = {
    ...(deps.registry ? { registry: deps.registry } : {}),
    ...(deps.logger ? { logger: deps.logger } : {}),
    ...(deps.workerId ? { workerId: deps.workerId } : {}),
  };
  const defaultLabel = isNoModel(base.summarizerModel) ? "deterministic" : base.summarizerModel.trim();
  const allowed = new Map<string, ReturnType<typeof resolveModel>>();
  for (const ref of [...(deps.sessionModels ?? []), base.summarizerModel, base.summarizerFallbackModel]) {
    if (isNoModel(ref)) continue;
    const r = resolveModel(ref, base); // throws on an unknown model: a config error at start, not per flush
    if (r) allowed.set(r.label, r);
  }
  const deterministic = createDeterministicSummarizer(base, common);
  const built = new Map<string, Summarizer>();
  const perHandOff = new WeakMap<HandOffEntry, Map<string, Summarizer>>();
  const breakers = new WeakMap<HandOffEntry, BreakerStore>();

  const cached = (cache: Map<string, Summarizer>, key: string, make: () => Summarizer) => {
    let s = cache.get(key);
    if (!s) {
      s = make();
      cache.set(key, s);
    }
    return s;
  };

  function fromHandOff(entry: HandOffEntry, settings: CondenseSettings): SelectedSummarizer {
    const { handOff } = entry;
    const tuning = sessionTuning(settings);
    let cache = perHandOff.get(entry);
    if (!cache) {
      cache = new Map();
      perHandOff.set(entry, cache);
    }
    let store = breakers.get(entry);
    if (!store) {
      store = createMemoryBreakerStore();
      breakers.set(entry, store);
    }
    const breakerStore = store;
    const summarizer = cached(cache, JSON.stringify(tuning), () =>
      createSummarizerForModels(
        // CAP-SUM-9: one attempt on the primary, then the fallback; no blind retries of the same model.
        { ...base, ...tuning, retries: 0 },
        {
          primary: handedOffToResolved(handOff.primary),
          fallback: handOff.fallback ? handedOffToResolved(handOff.fallback) : null,
        },
        // CAP-SUM-8: a session model with no distinct fallback keeps no outage state.
        { ...common, breakerStore, breakerWithoutFallbackModel: false },
      ),
    );
    const notice = handOff.notices.length > 0 ? handOff.notices.join("; ") : undefined;
    return {
      summarizer,
      source: "handed-off",
      primary: `${handOff.primary.provider}/${handOff.primary.id}`,
      ...(notice ? { notice } : {}),
    };
  }

  function fromOperator(primary: string, settings: CondenseSettings): SelectedSummarizer {
    const tuning = sessionTuning(settings);
    const fallbackRef =
      settings.summarizerFallbackModel && allowed.has(settings.summarizerFallbackModel.trim())
        ? settings.summarizerFallbackModel.trim()
        : base.summarizerFallbackModel;
    const summarizer = cached(built, JSON.stringify([primary, fallbackRef, tuning]), () =>
      createSummarizerForModels(
        { ...base, ...tuning },
        {
          primary: allowed.get(primary)!,
          fallback: fallbackRef && !isNoModel(fallbackRef) ? (allowed.get(fallbackRef.trim()) ?? null) : null,
        },
        { ...common, ...(deps.breakerStore ? { breakerStore: deps.breakerStore } : {}) },
      ),
    );
    return { summarizer, source: "operator", primary };
  }

  function workerDefault(settings: CondenseSettings, notice: string): SelectedSummarizer {
    if (deps.defaultSummarizer)
      return { summarizer: deps.defaultSummarizer, source: "worker-default", primary: defaultLabel, notice };
    if (defaultLabel === "deterministic")
      return { summarizer: deterministic, source: "worker-default", primary: defaultLabel, notice };
    return { ...fromOperator(defaultLabel, settings), source: "worker-default", notice };
  }

  return (key, settings) => {
    const requested = (settings.summarizerModel ?? "default").trim();
    if (EXPLICIT_DETERMINISTIC.has(requested.toLowerCase()))
      return { summarizer: deterministic, source: "deterministic", primary: "deterministic" };
    const entry = deps.handOffs?.get(key.tenantId, key.sessionId);
    if (entry) return fromHandOff(entry, settings);
    const label = (() => {
      try {
        const r = splitModelRef(requested);
        return `${r.provider}/${r.id}`;
      } catch {
        return null;
      }
    })();
    if (label && allowed.has(label)) return fromOperator(label, settings);
    const offered = [...allowed.keys()];
    const using = `summarizing with the worker default (${defaultLabel})`;
    if (requested.toLowerCase() === "default" || requested === "") {
      return workerDefault(
        settings,
        `no model was handed off for this session, so "default" (the agent's own model) is unavailable; ${using}`,
      );
    }
    return workerDefault(
      settings,
      `summarizerModel "${requested}" is not one of this service's models (${offered.length > 0 ? offered.join(", ") : "none configured"}); ${using}`,
    );
  };
}
