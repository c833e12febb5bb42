/**
 * What pi loads from this package in the repository (the package.json `pi` manifest): the prebuilt
 * bundle of ./index.ts while it is fresh (@condense/config's prebuilt-freshness: the bundle and the
 * service beside it exist, no source they were built from changed since), else ./index.ts itself.
 * pi transpiles an extension's TypeScript through jiti at every start (about 100 modules here, a few hundred ms on a
 * loaded host before the first LLM request); the bundle is one JavaScript file, and it starts the
 * prebuilt service beside it. CONDENSE_EXTENSION_SOURCE=1 always loads the source.
 */
import type { ExtensionAPI } from "@mariozechner/pi-coding-agent";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { processEnv } from "@condense/config";
import { freshPrebuilt } from "@condense/config/prebuilt-freshness";
import { extensionConfig } from "./extension-config.ts";

type ExtensionModule = { default: (pi: ExtensionAPI) => void };

export default async function condenseEntry(pi: ExtensionAPI): Promise<void> {
  const bundle = extensionConfig(processEnv()).extensionSource
    ? null
    : freshPrebuilt(dirname(dirname(fileURLToPath(import.meta.url))), {
        outputs: ["dist/index.js", "dist/service.js"],
      });
  const mod = (bundle ? await import(bundle) : await import("./index.ts")) as ExtensionModule;
  mod.default(pi);
}
