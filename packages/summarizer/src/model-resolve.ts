/**
 * Turns a `provider/model-id` setting into a pi-ai `Model` plus the API key to call it with. Custom
 * models (self-hosted endpoints, proxies, the tests' fake servers) are looked up first, then pi-ai's
 * catalogue, whose prices are what cost accounting uses.
 */
import type { Api, KnownProvider, Model } from "@mariozechner/pi-ai";
import type { CustomModelConfig, SummarizerConfig } from "./config.ts";
import { piAi } from "./pi-ai.ts";
import { processEnv } from "@condense/config";

export interface ResolvedModel {
  /** `provider/model-id`: the label in logs, metrics, attempts and breaker keys. */
  label: string;
  model: Model<Api>;
  /** Undefined when no key is configured: the attempt then fails as `auth` before any request. */
  apiKey: string | undefined;
  /** Request headers resolved with the key (pi's registry gives both). */
  headers?: Record<string, string>;
  /** Why the key could not be resolved (a handed-off model's auth failure): the attempt is `auth`, no stream. */
  authError?: string;
  /** Keyless endpoints (a local server that takes no key): send a placeholder instead of failing as `auth`. */
  keyOptional?: boolean;
}

/** Settings that mean "no model": the deterministic summarizer does the work. */
const NO_MODEL = new Set(["", "default", "deterministic", "none"]);

export function isNoModel(setting: string | null | undefined): boolean {
  return setting == null || NO_MODEL.has(setting.trim().toLowerCase());
}

/** Split at the first `/` (model ids may contain more slashes, e.g. OpenRouter's). */
export function splitModelRef(ref: string): { provider: string; id: string } {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) {
    throw new Error(`summarizer model "${ref}" must be "provider/model-id"`);
  }
  return { provider: ref.slice(0, slash), id: ref.slice(slash + 1) };
}

function customToModel(c: CustomModelConfig): Model<Api> {
  return {
    id: c.id,
    name: c.name ?? c.id,
    api: c.api,
    provider: c.provider,
    baseUrl: c.baseUrl,
    reasoning: c.reasoning,
    input: ["text"],
    cost: c.cost,
    contextWindow: c.contextWindow,
    maxTokens: c.maxTokens,
    ...(c.headers ? { headers: c.headers } : {}),
  } as Model<Api>;
}

function keyFor(provider: string, config: SummarizerConfig, custom?: CustomModelConfig): string | undefined {
  if (custom?.apiKey) return custom.apiKey;
  // A custom model names the variable that holds its key (documented with the env table).
  if (custom?.apiKeyEnv) return processEnv()[custom.apiKeyEnv]?.trim() || undefined;
  return config.apiKeys[provider] ?? piAi().getEnvApiKey(provider) ?? undefined;
}

/** Null for "no model"; throws on a malformed or unknown model, because that is a config error. */
export function resolveModel(ref: string | null | undefined, config: SummarizerConfig): ResolvedModel | null {
  if (isNoModel(ref)) return null;
  const { provider, id } = splitModelRef(ref!.trim());
  const custom = config.customModels.find((m) => m.provider === provider && m.id === id);
  if (custom)
    return { label: `${provider}/${id}`, model: customToModel(custom), apiKey: keyFor(provider, config, custom) };
  const { getModel, getProviders } = piAi();
  if (!(getProviders() as string[]).includes(provider)) {
    throw new Error(`summarizer model "${ref}": unknown provider "${provider}" (add it under customModels)`);
  }
  const model = getModel(provider as KnownProvider, id as never) as Model<Api> | undefined;
  if (!model) throw new Error(`summarizer model "${ref}": pi-ai has no model "${id}" for provider "${provider}"`);
  return { label: `${provider}/${id}`, model, apiKey: keyFor(provider, config) };
}
