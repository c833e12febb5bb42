/**
 * Summarizer flags -> the worker's env (CONDENSE_SUMMARIZER_MODEL / CONDENSE_SUMMARIZER_CONFIG).
 * Without flags the process env decides, and without that the deterministic summarizer runs (no
 * model, no key). A base URL turns the model into a custom OpenAI-compatible (or Anthropic) endpoint.
 */
import { CliError, EXIT } from "./cli-error.ts";

export interface SummarizerFlags {
  "summarizer-model"?: string;
  "summarizer-base-url"?: string;
  "summarizer-api"?: string;
  "summarizer-api-key-env"?: string;
}

const KEYS = ["CONDENSE_SUMMARIZER_MODEL", "CONDENSE_SUMMARIZER_FALLBACK_MODEL", "CONDENSE_SUMMARIZER_CONFIG"] as const;

export function summarizerEnvFromFlags(
  f: SummarizerFlags,
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  for (const k of KEYS) out[k] = env[k];
  const model = f["summarizer-model"]?.trim();
  const baseUrl = f["summarizer-base-url"]?.trim();
  if (!model) {
    if (baseUrl) throw new CliError("--summarizer-base-url needs --summarizer-model <provider/id>", EXIT.usage);
    return out;
  }
  const slash = model.indexOf("/");
  if (slash <= 0 || slash === model.length - 1)
    throw new CliError(
      `--summarizer-model must be provider/model-id (got ${model})`,
      EXIT.usage,
      "e.g. anthropic/claude-haiku-4-5 or, with --summarizer-base-url, local/qwen2.5-7b",
    );
  out.CONDENSE_SUMMARIZER_MODEL = model;
  if (!baseUrl) return out;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new CliError(`--summarizer-base-url is not a URL: ${baseUrl}`, EXIT.usage);
  }
  const api = f["summarizer-api"] ?? "openai-completions";
  if (api !== "openai-completions" && api !== "anthropic-messages")
    throw new CliError(`--summarizer-api must be openai-completions or anthropic-messages (got ${api})`, EXIT.usage);
  let base: Record<string, unknown> = {};
  if (env.CONDENSE_SUMMARIZER_CONFIG) {
    try {
      base = JSON.parse(env.CONDENSE_SUMMARIZER_CONFIG) as Record<string, unknown>;
    } catch {
      /* the worker reports a bad config itself */
    }
  }
  const customModels = Array.isArray(base.customModels) ? base.customModels : [];
  out.CONDENSE_SUMMARIZER_CONFIG = JSON.stringify({
    ...base,
    summarizerModel: model,
    customModels: [
      ...customModels,
      {
        provider: model.slice(0, slash),
        id: model.slice(slash + 1),
        api,
        baseUrl: url.toString().replace(/\/$/, ""),
        // A local server (llama.cpp, vLLM, Ollama) ignores the key, but a request without one is refused
        // before it is sent; name the env var when the endpoint does check it.
        ...(f["summarizer-api-key-env"] ? { apiKeyEnv: f["summarizer-api-key-env"] } : { apiKey: "no-key" }),
      },
    ],
  });
  return out;
}
