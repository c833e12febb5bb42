/**
 * One data directory: started with no environment but a home, the API, the worker, the local service,
 * the CLI and the pi extension resolve the same data root and the same PGlite (`<root>/pglite`), and a
 * tenant the CLI writes through a running API (`apps/api/src/main.ts`, a real process) is in the
 * database the CLI opens on its own (another process) and the worker's view opens.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localServicePaths } from "@condense/client";
import { apiConfig, cliConfig, clientConfig, serviceConfig, workerConfig } from "@condense/config";
import { createDb, getTenant } from "@condense/db";
import { dataDirOwner } from "@condense/service";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runToExit, startProcess } from "../../deploy/support/service-process.ts";

const REPO = join(import.meta.dirname, "../../..");
const tsx = [process.execPath, "--import", "tsx"];
let home: string;

beforeAll(() => {
  home = mkdtempSync(join(tmpdir(), "condense-one-dir-"));
});
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("one data directory", () => {
  it("every process view resolves <HOME>/.pi/agent/condense and its pglite/", () => {
    const env = { HOME: home };
    const root = join(home, ".pi", "agent", "condense");
    const pglite = `pglite:${join(root, "pglite")}`;
    expect(apiConfig(env)).toMatchObject({ dataDir: root, databaseUrl: pglite, mode: "embedded" });
    expect(workerConfig(env)).toMatchObject({ dataDir: root, databaseUrl: pglite, mode: "embedded" });
    const service = serviceConfig(env);
    expect(service.dataDir).toBe(root);
    expect(`pglite:${localServicePaths(service.dataDir).pgliteDir}`).toBe(pglite);
    expect(cliConfig(env)).toMatchObject({ dataDir: root, databaseUrl: undefined });
    expect(clientConfig(env).connection).toEqual({ mode: "local", dataDir: root });
  });

  it("a tenant written by the CLI through the API process is in the database the CLI alone and the worker open", async () => {
    const root = join(home, ".pi", "agent", "condense");
    const env = { HOME: home };
    const tenant = `one-dir-${process.pid}`;
    // The API entry point with nothing but a home (and a free port): the single-process service on the default root.
    const api = startProcess("api", [...tsx, "apps/api/src/main.ts"], {
      cwd: REPO,
      env: { ...env, CONDENSE_PORT: "0" },
    });
    try {
      const deadline = Date.now() + 90_000;
      // The owner lock names the endpoint once the API listens (port 0 until the real one is known).
      while (!/^http:\/\/.+:[1-9]\d*$/.test(dataDirOwner(root)?.endpoint ?? "")) {
        if (Date.now() > deadline || api.proc.exitCode !== null)
          throw new Error(`the API did not take ${root}:\n${api.output()}`);
        await new Promise((r) => setTimeout(r, 200));
      }
      // The CLI finds the API as the owner of the same directory and writes through it.
      const viaApi = await runToExit(
        "condense tenant create",
        [...tsx, "apps/cli/src/main.ts", "tenant", "create", tenant],
        {
          cwd: REPO,
          env,
        },
      );
      expect(viaApi).toMatch(new RegExp(`tenant created: ${tenant}`));
    } finally {
      await api.stop();
    }
    // With the API gone, the CLI opens the directory's PGlite itself, under its owner lock.
    const alone = await runToExit("condense migrate", [...tsx, "apps/cli/src/main.ts", "migrate"], { cwd: REPO, env });
    expect(alone).toContain(`migrations applied on PGlite at ${root}/pglite`);
    // And the worker's view opens that same database.
    const db = await createDb(workerConfig(env).databaseUrl);
    try {
      expect(await getTenant(db.db, tenant)).toMatchObject({ id: tenant });
    } finally {
      await db.close();
    }
  }, 180_000);
});
