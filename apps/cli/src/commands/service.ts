/**
 * `condense service start|stop|status`: the per-user local service that pi and the CLI share. It
 * starts on its own when something needs it; these are for looking at it and stopping it.
 */
import { dataDirOwner } from "@condense/service";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { dataDirFrom } from "../database-target.ts";
import { localHost } from "../local-service-client.ts";
import { parseFlags } from "../parse-flags.ts";

export const SERVICE_HELP = `condense service start|stop|status [--data-dir <dir>]

The local Condense service: one per data directory (default CONDENSE_DATA_DIR, else
~/.pi/agent/condense), reached over <data-dir>/service.sock, logging to <data-dir>/service.log.
pi and the condense commands start it when they need it; it stops on its own after
CONDENSE_SERVICE_IDLE_MS (default 600000) with no client connected and no flush pending.
  start    start it (or find it running) and print where it listens
  stop     stop it (SIGTERM; it finishes active flushes first)
  status   whether it runs, its pid and socket
`;

export async function serviceCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<{ "data-dir"?: string }>("service", argv, {
    "data-dir": { type: "string" },
  });
  if (help || positionals.length !== 1) {
    io.out(SERVICE_HELP);
    return help ? EXIT.ok : EXIT.usage;
  }
  const dataDir = dataDirFrom(values, io.env);
  const sub = positionals[0];
  if (sub === "start") {
    const host = localHost(dataDir, io.env);
    try {
      await host.ensure();
    } catch (err) {
      throw new CliError(
        `could not start the local service: ${err instanceof Error ? err.message : String(err)}`,
        EXIT.failure,
        `see ${host.paths.logFile}`,
      );
    }
    const owner = dataDirOwner(dataDir);
    io.out(`local service running: pid ${owner?.pid ?? "?"}, socket ${host.paths.socket}, log ${host.paths.logFile}\n`);
    return EXIT.ok;
  }
  const owner = dataDirOwner(dataDir);
  if (sub === "status") {
    io.out(
      owner
        ? `${owner.role}: pid ${owner.pid} since ${owner.since}${owner.endpoint ? `, serving ${owner.endpoint}` : ""} (data ${dataDir})\n`
        : `not running (data ${dataDir})\n`,
    );
    return owner ? EXIT.ok : EXIT.failure;
  }
  if (sub === "stop") {
    if (!owner) {
      io.out(`not running (data ${dataDir})\n`);
      return EXIT.ok;
    }
    if (!owner.role.includes("local service"))
      throw new CliError(
        `the data directory is owned by ${owner.role} (pid ${owner.pid}), not the local service`,
        EXIT.failure,
        `stop that process yourself (kill ${owner.pid})`,
      );
    process.kill(owner.pid, "SIGTERM");
    const deadline = Date.now() + 30_000;
    while (dataDirOwner(dataDir) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
    if (dataDirOwner(dataDir))
      throw new CliError(
        `the local service (pid ${owner.pid}) did not stop within 30 s`,
        EXIT.failure,
        `kill -9 ${owner.pid} (its lock is taken over by the next start)`,
      );
    io.out(`local service stopped (pid ${owner.pid})\n`);
    return EXIT.ok;
  }
  throw new CliError(`unknown subcommand: service ${sub}`, EXIT.usage, "usage: condense service start|stop|status");
}
