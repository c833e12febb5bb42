/**
 * The extension's way to the per-user local service: the client's socket host, told how to start the
 * service when none answers. The service's executable is located through @condense/service's package
 * exports but never imported: this process loads only the client (an import-graph test holds it).
 * From source, `node <daemon>` registers tsx from the service package, not from pi's cwd; in the packed
 * pi package the bundle (scripts/bundle.mjs) sets __CONDENSE_SERVICE_DAEMON__ to the bundled service
 * file beside the extension, which plain node runs.
 */
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";
import { localServiceHost, type LocalServiceHost } from "@condense/client";
import type { Env } from "@condense/config";
import { extensionConfig } from "./extension-config.ts";

declare const __CONDENSE_SERVICE_DAEMON__: string | undefined;

export function serviceEntry(env?: Env): string {
  const override = extensionConfig(env).serviceEntry;
  if (override) return override;
  if (typeof __CONDENSE_SERVICE_DAEMON__ === "string")
    return fileURLToPath(new URL(__CONDENSE_SERVICE_DAEMON__, import.meta.url));
  return createRequire(import.meta.url).resolve("@condense/service/daemon");
}

/** `beforeStart`: a service this process starts is started once pi waits on its model (model-wait.ts). */
export function localHost(dataDir: string, beforeStart?: () => Promise<void>): LocalServiceHost {
  return localServiceHost({
    dataDir,
    command: { file: process.execPath, args: [serviceEntry()] },
    ...(beforeStart ? { beforeStart } : {}),
  });
}
