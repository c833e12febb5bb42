/** The `condense` commands: name -> one-line summary and handler. */
import type { CliIo } from "./cli-io.ts";
import { migrateCommand } from "./commands/migrate.ts";
import { replayCommand } from "./commands/replay.ts";
import { serveCommand } from "./commands/serve.ts";
import { serviceCommand } from "./commands/service.ts";
import { statusCommand } from "./commands/status.ts";
import { tenantCommand } from "./commands/tenant.ts";
import { keysCommand } from "./commands/keys.ts";
import { retentionCommand } from "./commands/retention.ts";
import { workerCommand } from "./commands/worker.ts";

export interface Command {
  summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

export const COMMANDS: Record<string, Command> = {
  replay: { summary: "replay a recorded agent session through Condense and report the savings", run: replayCommand },
  serve: { summary: "run the API (embedded: with a worker and PGlite; fleet: API only)", run: serveCommand },
  worker: { summary: "run a fleet worker (DATABASE_URL + REDIS_URL)", run: workerCommand },
  migrate: { summary: "apply the database migrations", run: migrateCommand },
  tenant: { summary: "tenant create <id>: create a tenant", run: tenantCommand },
  key: { summary: "key create|list|revoke|rotate: API keys of a tenant", run: keysCommand },
  status: { summary: "health and fleet figures (a running API or the database)", run: statusCommand },
  retention: {
    summary: "retention run: delete settled captures, stored bodies, metrics rows and recoveries past their age",
    run: retentionCommand,
  },
  service: { summary: "service start|stop|status: the local service pi and the CLI share", run: serviceCommand },
};

export function mainHelp(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((n) => n.length));
  const rows = Object.entries(COMMANDS)
    .map(([n, c]) => `  ${n.padEnd(width)}  ${c.summary}`)
    .join("\n");
  return `condense — context condensation for fleets of coding agents

Usage: condense <command> [options]      (condense <command> --help for details)

Commands:
${rows}

Start here: condense replay <session-file>   (pi, Claude Code, Codex CLI or SWE-agent session)
`;
}
