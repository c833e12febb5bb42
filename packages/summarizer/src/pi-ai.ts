/**
 * The part of pi-ai the summarizer uses (streamSimple, getEnvApiKey, getModel, getProviders; and the
 * catalogue's getModels, for the replay's prices), loaded on first use instead of with this package.
 * pi-ai's entry re-exports typebox (~680 ES modules) and all of its helpers: about 0.3 s of CPU to load, which the per-user local service paid at every start
 * while the agent that started it runs its first steps, and again at a session's first summary. Its
 * own `dist/stream.js` (the provider dispatch, which loads each provider on first use) and
 * `dist/models.js` (the catalogue) take about 25 ms together, so those two are loaded, by path beside
 * the entry (pi-ai's exports map lists only the entry); if a pi-ai release moves them, the entry is
 * loaded instead (the same functions, the old cost). Callers are synchronous (`resolveModel` runs in
 * constructors), so the modules are required synchronously (Node >= 20.19 requires ES modules
 * without top-level await). Types come from the type-only import.
 */
import { existsSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

type PiAiModule = typeof import("@mariozechner/pi-ai");
export type PiAi = Pick<PiAiModule, "streamSimple" | "getEnvApiKey" | "getModel" | "getModels" | "getProviders">;

let loaded: { api: PiAi; from: "parts" | "entry" } | undefined;

function load(): { api: PiAi; from: "parts" | "entry" } {
  const require = createRequire(import.meta.url);
  const entry = fileURLToPath(import.meta.resolve("@mariozechner/pi-ai"));
  const stream = join(dirname(entry), "stream.js");
  const models = join(dirname(entry), "models.js");
  if (existsSync(stream) && existsSync(models)) {
    const s = require(stream) as Partial<PiAi>;
    const m = require(models) as Partial<PiAi>;
    if (s.streamSimple && s.getEnvApiKey && m.getModel && m.getModels && m.getProviders)
      return {
        api: {
          streamSimple: s.streamSimple,
          getEnvApiKey: s.getEnvApiKey,
          getModel: m.getModel,
          getModels: m.getModels,
          getProviders: m.getProviders,
        },
        from: "parts",
      };
  }
  return { api: require(entry) as PiAiModule, from: "entry" };
}

/** pi-ai's functions, loading them on the first call. */
export function piAi(): PiAi {
  loaded ??= load();
  return loaded.api;
}

/** What has been loaded: nothing yet, pi-ai's two modules, or its whole entry (for the tests). */
export function piAiLoaded(): "parts" | "entry" | null {
  return loaded?.from ?? null;
}
