/**
 * The view of code that runs inside the agent (the pi extension and the client it uses): how to reach
 * Condense (a fleet API when CONDENSE_URL is set, else the local service of the data directory) and
 * the extension's own knobs.
 */
import { dataRoot, piAgentDir } from "./data-dir.ts";
import { envReader, type Env, type ReadOptions } from "./env-reader.ts";

export type ConnectionConfig = { mode: "fleet"; url: string; apiKey: string } | { mode: "local"; dataDir: string };

export interface ClientConfig {
  connection: ConnectionConfig;
  dataDir: string;
  /** pi's configuration directory. */
  agentDir: string;
  /** An explicit local service executable, else the client's packaged one. */
  serviceEntry: string | undefined;
  syncTimeoutMs: number;
  /** pi exits: give up once this long passes with nothing acknowledged... */
  shutdownDrainMs: number;
  /** ...or once the drain has lasted this long. */
  shutdownDrainMaxMs: number;
  debug: boolean;
  quiet: boolean;
  /** Keep the last applied state of each session on disk, so a resumed session renders condensed at once. */
  stateCache: boolean;
  /** Load the extension from its TypeScript source even when a fresh prebuilt bundle exists. */
  extensionSource: boolean;
}

export function clientConfig(env: Env, options: ReadOptions = {}): ClientConfig {
  const r = envReader(env, "Condense client", options);
  const dataDir = dataRoot(env);
  const url = r.get("CONDENSE_URL");
  const config: ClientConfig = {
    connection: url ? { mode: "fleet", url, apiKey: r.get("CONDENSE_API_KEY") } : { mode: "local", dataDir },
    dataDir,
    agentDir: piAgentDir(env),
    serviceEntry: r.get("CONDENSE_SERVICE_ENTRY"),
    syncTimeoutMs: r.get("CONDENSE_SYNC_TIMEOUT_MS"),
    shutdownDrainMs: r.get("CONDENSE_SHUTDOWN_DRAIN_MS"),
    shutdownDrainMaxMs: r.get("CONDENSE_SHUTDOWN_DRAIN_MAX_MS"),
    debug: r.get("CONDENSE_DEBUG"),
    quiet: r.get("CONDENSE_QUIET"),
    stateCache: r.get("CONDENSE_STATE_CACHE"),
    extensionSource: r.get("CONDENSE_EXTENSION_SOURCE"),
  };
  r.done();
  return config;
}
