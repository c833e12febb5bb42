/**
 * The state cache's file: beside the spool in Condense's own directory, one per service identity and
 * session, so no state crosses a tenant, a service or a session.
 */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { openStateCache, stateCacheDir, stateCacheIdentity, stateCachePath } from "../src/state-cache-location.ts";
import { spoolDir } from "../src/spool-location.ts";

describe("state cache location", () => {
  const env = { CONDENSE_DATA_DIR: "/data/condense" };

  it("lives beside the spool", () => {
    expect(stateCacheDir(env)).toBe(join("/data/condense", "state"));
    expect(join(stateCacheDir(env), "..")).toBe(join(spoolDir(env), ".."));
    expect(stateCacheDir({ PI_CODING_AGENT_DIR: "/home/u/.pi/agent" })).toBe(
      join("/home/u/.pi/agent", "condense", "state"),
    );
  });

  it("keys by service identity and session; the identity never holds the API key", () => {
    const a = stateCacheIdentity({ mode: "fleet", url: "https://c.example/", apiKey: "ck_secret_a" });
    const b = stateCacheIdentity({ mode: "fleet", url: "https://c.example", apiKey: "ck_secret_b" });
    const local = stateCacheIdentity({ mode: "local", dataDir: "/data/condense" });
    expect(a).not.toContain("ck_secret");
    expect(a.startsWith("fleet:https://c.example#")).toBe(true);
    expect(new Set([a, b, local]).size).toBe(3);
    expect(stateCachePath(a, "s1", env)).not.toBe(stateCachePath(b, "s1", env));
    expect(stateCachePath(a, "s1", env)).not.toBe(stateCachePath(a, "s2", env));
    expect(stateCachePath(a, "a/b", env).startsWith(join("/data/condense", "state", "a%2Fb."))).toBe(true);
  });

  it("CONDENSE_STATE_CACHE=0 turns it off", () => {
    const conn = { mode: "local", dataDir: "/d" } as const;
    expect(openStateCache(conn, "s", () => {}, { ...env, CONDENSE_STATE_CACHE: "0" })).toBeUndefined();
    const cache = openStateCache(conn, "s", () => {}, env)!;
    expect(cache.identity).toBe(stateCacheIdentity(conn));
    expect(cache.path).toBe(stateCachePath(cache.identity, "s", env));
  });
});
