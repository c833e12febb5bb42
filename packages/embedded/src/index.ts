/** @condense/embedded: the single-process Condense service (PGlite + in-process queue + worker + API) for one machine. */
export { startEmbeddedHost, EMBEDDED_ORIGIN, type EmbeddedHost, type EmbeddedHostOptions } from "./embedded-host.ts";
export { localApiKey, LOCAL_TENANT } from "./local-api-key.ts";
