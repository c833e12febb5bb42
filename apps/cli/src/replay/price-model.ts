/**
 * List prices for the cost estimate, from pi-ai's model catalogue (USD per million tokens), loaded
 * through the summarizer's pi-ai loader: the catalogue module alone, not pi-ai's entry (about 0.35 s of
 * CPU at every `condense` start when it was imported here). This package keeps pi-ai as a dependency
 * of its own: the loader finds pi-ai with `import.meta.resolve`, which in the CLI's prebuilt bundle
 * resolves from this package's directory (knip.json says so).
 */
import { piAi } from "@condense/summarizer";
import { CliError, EXIT } from "../cli-error.ts";

export const DEFAULT_PRICE_MODEL = "anthropic/claude-sonnet-4-5";

export interface ModelPrice {
  model: string;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  contextWindow: number;
}

export function priceOf(ref: string): ModelPrice {
  const slash = ref.indexOf("/");
  const provider = slash > 0 ? ref.slice(0, slash) : "";
  const id = slash > 0 ? ref.slice(slash + 1) : ref;
  const { getModels, getProviders } = piAi();
  const providers = getProviders() as string[];
  if (!providers.includes(provider)) {
    throw new CliError(
      `unknown price model provider in ${ref}`,
      EXIT.usage,
      `use provider/model-id; providers: ${providers.sort().join(", ")}`,
    );
  }
  const models = getModels(provider as never) as {
    id: string;
    cost: Omit<ModelPrice, "model" | "contextWindow">;
    contextWindow: number;
  }[];
  const m = models.find((x) => x.id === id);
  if (!m) {
    const near = models
      .map((x) => x.id)
      .filter((x) => x.includes(id.split("-").slice(0, 2).join("-")))
      .slice(0, 8);
    throw new CliError(
      `unknown price model: ${ref}`,
      EXIT.usage,
      near.length
        ? `did you mean: ${near.map((x) => `${provider}/${x}`).join(", ")}`
        : `see pi-ai's catalogue for ${provider}`,
    );
  }
  return { model: `${provider}/${m.id}`, ...m.cost, contextWindow: m.contextWindow };
}
