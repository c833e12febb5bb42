/**
 * Prometheus series an operator pages on for the summarizer: attempts by outcome, bodies by source,
 * fallback state and transitions. Registered on the registry the app passes in (its /metrics one);
 * an already-registered series is reused, so several summarizers in one process share them.
 */
import { Counter, Gauge, Registry, type Metric } from "prom-client";

export interface SummarizerMetrics {
  attempts: Counter<"model" | "outcome">;
  bodies: Counter<"source">;
  fallbackActive: Gauge<"primary">;
  transitions: Counter<"primary" | "to">;
  costUsd: Counter<"model">;
  tokens: Counter<"model" | "kind">;
}

function reuse<T extends Metric>(registry: Registry, name: string, make: () => T): T {
  return (registry.getSingleMetric(name) as T | undefined) ?? make();
}

export function createSummarizerMetrics(registry: Registry = new Registry()): SummarizerMetrics {
  const registers = [registry];
  return {
    attempts: reuse(
      registry,
      "condense_summarizer_attempts_total",
      () =>
        new Counter({
          name: "condense_summarizer_attempts_total",
          help: "Summarizer model attempts by outcome (ok, transient, auth, unusable).",
          labelNames: ["model", "outcome"] as const,
          registers,
        }),
    ),
    bodies: reuse(
      registry,
      "condense_summarizer_bodies_total",
      () =>
        new Counter({
          name: "condense_summarizer_bodies_total",
          help: "Summaries and fusions produced, by body source.",
          labelNames: ["source"] as const,
          registers,
        }),
    ),
    fallbackActive: reuse(
      registry,
      "condense_summarizer_fallback_active",
      () =>
        new Gauge({
          name: "condense_summarizer_fallback_active",
          help: "1 while the fleet uses the fallback because the primary model is failing.",
          labelNames: ["primary"] as const,
          registers,
        }),
    ),
    transitions: reuse(
      registry,
      "condense_summarizer_fallback_transitions_total",
      () =>
        new Counter({
          name: "condense_summarizer_fallback_transitions_total",
          help: "Fleet-wide breaker switches made by this process (to=fallback|primary).",
          labelNames: ["primary", "to"] as const,
          registers,
        }),
    ),
    costUsd: reuse(
      registry,
      "condense_summarizer_cost_usd_total",
      () =>
        new Counter({
          name: "condense_summarizer_cost_usd_total",
          help: "Summarizer spend in USD at catalogue prices.",
          labelNames: ["model"] as const,
          registers,
        }),
    ),
    tokens: reuse(
      registry,
      "condense_summarizer_tokens_total",
      () =>
        new Counter({
          name: "condense_summarizer_tokens_total",
          help: "Summarizer tokens by kind (input, output, cacheRead, cacheWrite).",
          labelNames: ["model", "kind"] as const,
          registers,
        }),
    ),
  };
}
