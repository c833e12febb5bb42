#!/usr/bin/env -S npx tsx
/**
 * `condense`: entry point. Dispatches to a command, prints CliErrors as "error: ..." plus what to do
 * next (never a stack trace), offers the nearest command for a mistyped one, answers --version, and
 * exits with the command's code. The executable is bin/condense.mjs; this file also runs directly.
 */
import { ConfigError } from "@condense/config";
import { CliError, EXIT } from "./cli-error.ts";
import { processIo, type CliIo } from "./cli-io.ts";
import { cliVersion } from "./cli-version.ts";
import { COMMANDS, mainHelp } from "./commands.ts";
import { didYouMean } from "./did-you-mean.ts";

const GLOBAL_FLAGS = ["--help", "--version", "--json"];

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [name, ...rest] = argv;
  if (name === "--version" || name === "-V" || name === "version") {
    const version = cliVersion();
    io.out(
      rest.includes("--json")
        ? `${JSON.stringify({ name: "condense", version, node: process.versions.node })}\n`
        : `condense ${version}\n`,
    );
    return EXIT.ok;
  }
  if (!name || name === "-h" || name === "--help" || name === "help") {
    io.out(mainHelp());
    return name ? EXIT.ok : EXIT.usage;
  }
  const command = COMMANDS[name];
  if (!command) {
    const hint = name.startsWith("-") ? didYouMean(name, GLOBAL_FLAGS) : didYouMean(name, Object.keys(COMMANDS));
    io.err(`error: unknown ${name.startsWith("-") ? "option" : "command"}: ${name}${hint}\n${mainHelp()}`);
    return EXIT.usage;
  }
  try {
    return await command.run(rest, io);
  } catch (err) {
    if (err instanceof CliError) {
      io.err(`error: ${err.message}\n${err.hint ? `${err.hint}\n` : ""}`);
      return err.exitCode;
    }
    if (err instanceof ConfigError) {
      io.err(`error: ${err.message}\nfix the environment variable(s) named above (docs/operations.md, Environment)\n`);
      return EXIT.usage;
    }
    io.err(`error: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    return EXIT.failure;
  }
}

/** Runs the CLI on this process's stdio and exits with its code. */
export async function runMain(argv: string[]): Promise<void> {
  const code = await runCli(argv, processIo());
  // Background handles (PGlite, timers) must not keep a finished command alive.
  process.exitCode = code;
  setTimeout(() => process.exit(code), 50).unref();
}

const isMain = process.argv[1] !== undefined && import.meta.url === new URL(`file://${process.argv[1]}`).href;
if (isMain) await runMain(process.argv.slice(2));
