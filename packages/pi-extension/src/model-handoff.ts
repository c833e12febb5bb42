/**
 * What the extension hands the local service so it summarizes with this session's own models
 * (CAP-SUM-5, issue 16 item 1): `summarizerModel: "default"` is the session's active model
 * (`ctx.model`); `provider/id` is looked up in pi's model registry and falls back to the active model
 * with a notice; the fallback is `summarizerFallbackModel` (same lookup) or else the session's model
 * when the primary is another one (CAP-SUM-9). Keys and headers come from pi's registry and auth
 * (`getApiKeyAndHeaders`), so whatever pi would send, the summarizer sends. Only for a local service:
 * a fleet summarizes with its operator's models, and the agent's keys never leave the machine.
 */
import type { ExtensionContext } from "@mariozechner/pi-coding-agent";
import type { CondenseSettings } from "@condense/core";
import type { SummarizerHandOffBody } from "@condense/client";

type PiModel = NonNullable<ExtensionContext["model"]>;

const label = (m: { provider: string; id: string }) => `${m.provider}/${m.id}`;
const NO_HANDOFF = new Set(["deterministic", "none"]);

/**
 * CAP-SUM-5: a provider whose auth carries a seat-specific endpoint (GitHub Copilot business seats)
 * must be called there, not at the model's static URL. pi 0.73 has no such auth; newer pi exposes
 * `getProviderAuth(provider)` with `auth.baseUrl`, used when present.
 */
async function seatBaseUrl(ctx: ExtensionContext, model: PiModel): Promise<string | undefined> {
  const registry = ctx.modelRegistry as unknown as {
    getProviderAuth?: (provider: string) => Promise<{ auth?: { baseUrl?: unknown } } | undefined>;
  };
  if (typeof registry.getProviderAuth !== "function") return undefined;
  try {
    const r = await registry.getProviderAuth(model.provider);
    return typeof r?.auth?.baseUrl === "string" && r.auth.baseUrl ? r.auth.baseUrl : undefined;
  } catch {
    return undefined;
  }
}

/** A model of pi's registry as the service's route takes it (JSON fields only, plus the resolved auth). */
async function describe(ctx: ExtensionContext, model: PiModel): Promise<Record<string, unknown>> {
  const resolved = await ctx.modelRegistry.getApiKeyAndHeaders(model);
  const seatUrl = resolved.ok ? await seatBaseUrl(ctx, model) : undefined;
  const m = model as PiModel & { compat?: unknown; thinkingLevelMap?: unknown };
  return {
    provider: m.provider,
    id: m.id,
    api: m.api,
    baseUrl: typeof seatUrl === "string" && seatUrl ? seatUrl : m.baseUrl,
    name: m.name,
    reasoning: m.reasoning,
    input: m.input,
    contextWindow: m.contextWindow,
    maxTokens: m.maxTokens,
    cost: m.cost,
    ...(m.compat && typeof m.compat === "object" ? { compat: JSON.parse(JSON.stringify(m.compat)) as unknown } : {}),
    ...(m.thinkingLevelMap && typeof m.thinkingLevelMap === "object"
      ? { thinkingLevelMap: JSON.parse(JSON.stringify(m.thinkingLevelMap)) as unknown }
      : {}),
    auth: resolved.ok
      ? {
          ok: true,
          ...(resolved.apiKey ? { apiKey: resolved.apiKey } : {}),
          ...(resolved.headers ? { headers: resolved.headers } : {}),
        }
      : { ok: false, error: resolved.error },
  };
}

/** `provider/id` in pi's registry, or null with the notice that says what happens instead. */
function lookup(
  ctx: ExtensionContext,
  ref: string,
  setting: string,
  active: PiModel,
  notices: string[],
): PiModel | null {
  const slash = ref.indexOf("/");
  if (slash <= 0 || slash === ref.length - 1) {
    notices.push(`${setting} "${ref}" is not "provider/model-id"; summarizing with the session model ${label(active)}`);
    return null;
  }
  const found = ctx.modelRegistry.find(ref.slice(0, slash), ref.slice(slash + 1));
  if (!found)
    notices.push(
      `${setting} "${ref}" is not in pi's model registry; summarizing with the session model ${label(active)}`,
    );
  return found ?? null;
}

/** The hand-off for the session's current model and settings; null when there is nothing to hand off. */
export async function resolveHandOff(
  ctx: ExtensionContext | undefined,
  settings: CondenseSettings,
  activeOverride?: PiModel,
): Promise<SummarizerHandOffBody | null> {
  const active = activeOverride ?? ctx?.model;
  if (!ctx || !active) return null;
  const requested = settings.summarizerModel.trim();
  if (NO_HANDOFF.has(requested.toLowerCase())) return null;
  const notices: string[] = [];
  const primary =
    requested === "" || requested.toLowerCase() === "default"
      ? active
      : (lookup(ctx, requested, "summarizerModel", active, notices) ?? active);
  let fallback: PiModel | null = null;
  const fallbackRef = settings.summarizerFallbackModel?.trim();
  if (fallbackRef) fallback = lookup(ctx, fallbackRef, "summarizerFallbackModel", active, notices) ?? active;
  else fallback = active;
  // No distinct fallback: the single-attempt path (CAP-SUM-8), then the service's deterministic last resort.
  if (label(fallback) === label(primary)) fallback = null;
  return {
    primary: await describe(ctx, primary),
    fallback: fallback ? await describe(ctx, fallback) : null,
    notices,
  };
}
