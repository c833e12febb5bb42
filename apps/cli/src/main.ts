#!/usr/bin/env -S npx tsx
/**
 * `condense`: entry point. Dispatches to a command, prints CliErrors as "error: ..." plus what to do
 * next (never a stack trace), and exits with the command's code.
 */
import { CliError, EXIT } from "./cli-error.ts";
import { processIo, type CliIo } from "./cli-io.ts";
import { COMMANDS, mainHelp } from "./commands.ts";

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "-h" || name === "--help" || name === "help") {
    io.out(mainHelp());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`error: unknown command: ${name}\n${mainHelp()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`error: ${err.message}\n${err.hint ? `${err.hint}\n` : ""}`);
      return err.exitCode;
    }
    io.err(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.failure;
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) {
  const code = await runCli(process.argv.slice(2), processIo());
  // Background handles (PGlite, timers) must not keep a finished command alive.
  process.exitCode = code;
  setTimeout(() => process.exit(code), 50).unref();
}
