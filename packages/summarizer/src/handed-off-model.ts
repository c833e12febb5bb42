/**
 * A model handed to the service by the agent that owns it (pi resolves it through its model registry
 * and auth, CAP-SUM-5), and what the summarizer makes of it. The hand-off carries the model's wire
 * description (api, base URL, limits, prices, compat flags) and the resolved request auth (key and
 * headers, or why they could not be resolved). It lives in memory only (handoff-registry.ts).
 */
import type { Api, Model } from "@mariozechner/pi-ai";
import type { ResolvedModel } from "./model-resolve.ts";

export type HandedOffAuth =
  | { ok: true; apiKey?: string; headers?: Record<string, string> }
  | { ok: false; error: string };

export interface HandedOffModel {
  provider: string;
  id: string;
  /** pi-ai api id (openai-completions, anthropic-messages, openai-responses, ...). */
  api: string;
  baseUrl: string;
  name?: string;
  reasoning?: boolean;
  input?: string[];
  contextWindow?: number;
  maxTokens?: number;
  /** USD per million tokens, as in pi's models.json. */
  cost?: { input: number; output: number; cacheRead: number; cacheWrite: number };
  compat?: Record<string, unknown>;
  thinkingLevelMap?: Record<string, unknown>;
  auth: HandedOffAuth;
}

export interface SummarizerHandOff {
  /** The model that summarizes (summarizerModel resolved; the session's model for "default"). */
  primary: HandedOffModel;
  /** Tried when the primary fails (summarizerFallbackModel, else the session's model when it differs). */
  fallback: HandedOffModel | null;
  /** What the agent had to decide while resolving (e.g. a model not in its registry); shown in status. */
  notices: string[];
}

export const handedOffLabel = (m: Pick<HandedOffModel, "provider" | "id">): string => `${m.provider}/${m.id}`;

export function handedOffToResolved(m: HandedOffModel): ResolvedModel {
  const model = {
    id: m.id,
    name: m.name ?? m.id,
    api: m.api,
    provider: m.provider,
    baseUrl: m.baseUrl,
    reasoning: m.reasoning ?? false,
    input: m.input ?? ["text"],
    cost: m.cost ?? { input: 0, output: 0, cacheRead: 0, cacheWrite: 0 },
    contextWindow: m.contextWindow ?? 128_000,
    maxTokens: m.maxTokens ?? 8192,
    ...(m.compat ? { compat: m.compat } : {}),
    ...(m.thinkingLevelMap ? { thinkingLevelMap: m.thinkingLevelMap } : {}),
  } as unknown as Model<Api>;
  const label = handedOffLabel(m);
  if (!m.auth.ok) return { label, model, apiKey: undefined, authError: `summarizer ${label}: ${m.auth.error}` };
  return {
    label,
    model,
    apiKey: m.auth.apiKey,
    ...(m.auth.headers ? { headers: m.auth.headers } : {}),
    // pi resolved the request auth as complete: a provider without a key (a local server) is fine.
    keyOptional: true,
  };
}

/** The hand-off with every secret replaced, for logs and error messages. */
export function redactHandOff(h: SummarizerHandOff): unknown {
  const one = (m: HandedOffModel | null) =>
    m && {
      ...m,
      auth: m.auth.ok
        ? {
            ok: true,
            apiKey: m.auth.apiKey ? "[redacted]" : undefined,
            headers: m.auth.headers
              ? Object.fromEntries(Object.keys(m.auth.headers).map((k) => [k, "[redacted]"]))
              : undefined,
          }
        : m.auth,
    };
  return { primary: one(h.primary), fallback: one(h.fallback), notices: h.notices };
}
