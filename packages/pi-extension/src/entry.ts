/**
 * What pi loads from this package in the repository (the package.json `pi` manifest): the prebuilt
 * bundle of ./index.ts while it is fresh (prebuilt.ts), else ./index.ts itself. pi transpiles an
 * extension's TypeScript through jiti at every start (about 100 modules here, a few hundred ms on a
 * loaded host before the first LLM request); the bundle is one JavaScript file, and it starts the
 * prebuilt service beside it. CONDENSE_EXTENSION_SOURCE=1 always loads the source.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { processEnv } from "@condense/config";
import { extensionConfig } from "./extension-config.ts";
import { freshPrebuiltEntry } from "./prebuilt.ts";

type ExtensionModule = { default: (pi: ExtensionAPI) => void };

export default async function condenseEntry(pi: ExtensionAPI): Promise<void> {
  const bundle = extensionConfig(processEnv()).extensionSource
    ? null
    : freshPrebuiltEntry(dirname(dirname(fileURLToPath(import.meta.url))));
  const mod = (bundle ? await import(bundle) : await import("./index.ts")) as ExtensionModule;
  mod.default(pi);
}
