/**
 * node:util parseArgs with the CLI's conventions: unknown flags and missing values become a usage
 * error that names the command's --help, and every command accepts -h/--help.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { CliError, EXIT } from "./cli-error.ts";
import { didYouMean } from "./did-you-mean.ts";

type Options = NonNullable<ParseArgsConfig["options"]>;

export interface ParsedFlags<T> {
  values: T;
  positionals: string[];
  help: boolean;
}

export function parseFlags<T>(command: string, argv: string[], options: Options): ParsedFlags<T> {
  try {
    const r = parseArgs({
      args: argv,
      options: { ...options, help: { type: "boolean", short: "h" } },
      allowPositionals: true,
      strict: true,
    });
    const { help, ...values } = r.values as Record<string, unknown>;
    return { values: values as T, positionals: r.positionals, help: help === true };
  } catch (err) {
    const why = err instanceof Error ? err.message.replace(/\. To specify a positional argument.*$/s, "") : String(err);
    const unknown = /^Unknown option '(-{1,2}[^'=]+)/.exec(why)?.[1];
    const known = [...Object.keys(options).map((o) => `--${o}`), "--help"];
    const hint = unknown ? didYouMean(unknown, known) : "";
    throw new CliError(`${why}${hint}`, EXIT.usage, `see: condense ${command} --help`);
  }
}

export function intFlag(name: string, raw: string | undefined, def: number, min = 0): number {
  if (raw === undefined) return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`--${name} must be an integer >= ${min} (got ${raw})`, EXIT.usage);
  return n;
}
