/**
 * pi-ai, loaded on first use instead of with this package. Its module graph (typebox's ~680 ES modules
 * among them) costs about 0.3 s of CPU to load, which the per-user local service paid at every start,
 * while the agent that started it runs its first steps; most services never need it then (a
 * session's summaries use the model its agent hands off, and the first comes with the first flush),
 * and many never (the deterministic summarizer). Callers are synchronous (`resolveModel` runs in
 * constructors), so the module is required synchronously: pi-ai is ESM with an `import`-only exports
 * map, so its entry is resolved with `import.meta.resolve` and loaded with `require` (Node >= 20.19
 * requires ES modules without top-level await). Types come from the static, type-only import.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export type PiAi = typeof import("@mariozechner/pi-ai");

let loaded: PiAi | undefined;

/** pi-ai's module, loading it on the first call. */
export function piAi(): PiAi {
  loaded ??= createRequire(import.meta.url)(fileURLToPath(import.meta.resolve("@mariozechner/pi-ai"))) as PiAi;
  return loaded;
}

/** Whether pi-ai has been loaded in this process (for the tests of what loads it). */
export function piAiLoaded(): boolean {
  return loaded !== undefined;
}
