/**
 * `condense retention run`: one retention run now (the job the worker runs on its schedule), with the
 * policy from the same env variables (CONDENSE_RETENTION_*_DAYS), each overridable by a flag.
 */
import { runRetention, type RetentionPolicy } from "@condense/db";
import { loadWorkerConfig, WorkerConfigError } from "@condense/worker";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { databaseUrlFrom, describeDatabase, openDatabase } from "../database-target.ts";
import { didYouMean } from "../did-you-mean.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";

export const RETENTION_HELP = `condense retention run [--captures-days N] [--stored-bodies-days N] [--flush-metrics-days N]
                       [--recoveries-days N] [--json] [--database-url <url>] [--data-dir <dir>]

Deletes, once, what is older than its retention (0 keeps a kind forever):
  settled captures (never pending ones)      CONDENSE_RETENTION_CAPTURES_DAYS       (default 30)
  stored bodies of sessions idle that long   CONDENSE_RETENTION_STORED_BODIES_DAYS  (default 30)
  flush_metrics rows                         CONDENSE_RETENTION_FLUSH_METRICS_DAYS  (default 90)
  recoveries (query hits)                    CONDENSE_RETENTION_RECOVERIES_DAYS     (default 90)
The worker runs the same job every CONDENSE_RETENTION_INTERVAL_MINUTES (default 60; 0 = never).
`;

interface Flags {
  "captures-days"?: string;
  "stored-bodies-days"?: string;
  "flush-metrics-days"?: string;
  "recoveries-days"?: string;
  json?: boolean;
  "database-url"?: string;
  "data-dir"?: string;
}

export async function retentionCommand(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals, help } = parseFlags<Flags>("retention", argv, {
    "captures-days": { type: "string" },
    "stored-bodies-days": { type: "string" },
    "flush-metrics-days": { type: "string" },
    "recoveries-days": { type: "string" },
    json: { type: "boolean" },
    "database-url": { type: "string" },
    "data-dir": { type: "string" },
  });
  if (help || positionals.length === 0) {
    io.out(RETENTION_HELP);
    return help ? EXIT.ok : EXIT.usage;
  }
  if (positionals[0] !== "run" || positionals.length > 1)
    throw new CliError(
      `unknown subcommand: retention ${positionals.join(" ")}${didYouMean(positionals[0]!, ["run"], (w) => `retention ${w}`)}`,
      EXIT.usage,
      "usage: condense retention run",
    );
  let fromEnv: RetentionPolicy;
  try {
    // Only the retention variables: the database comes from --database-url / DATABASE_URL below, and
    // the worker's other rules (e.g. REDIS_URL needs a postgres DATABASE_URL) do not apply to this run.
    const retentionEnv = Object.fromEntries(
      Object.entries(io.env).filter(([k]) => k.startsWith("CONDENSE_RETENTION_")),
    );
    fromEnv = loadWorkerConfig(retentionEnv).retention.policy;
  } catch (err) {
    if (err instanceof WorkerConfigError)
      throw new CliError(err.message, EXIT.usage, "fix the CONDENSE_RETENTION_* variables (whole days, 0 or more)");
    throw err;
  }
  const policy: RetentionPolicy = {
    capturesDays: intFlag("captures-days", values["captures-days"], fromEnv.capturesDays, 0),
    storedBodiesDays: intFlag("stored-bodies-days", values["stored-bodies-days"], fromEnv.storedBodiesDays, 0),
    flushMetricsDays: intFlag("flush-metrics-days", values["flush-metrics-days"], fromEnv.flushMetricsDays, 0),
    recoveriesDays: intFlag("recoveries-days", values["recoveries-days"], fromEnv.recoveriesDays, 0),
  };
  const url = databaseUrlFrom(values, io.env);
  const handle = await openDatabase(url);
  try {
    const removed = await runRetention(handle.db, policy);
    if (values.json) io.out(`${JSON.stringify({ database: describeDatabase(url), policy, removed }, null, 2)}\n`);
    else {
      const kept = (d: number) => (d === 0 ? "kept forever" : `older than ${d} days`);
      io.out(
        `${[
          `retention on ${describeDatabase(url)}:`,
          `  settled captures    ${String(removed.captures).padStart(8)} deleted (${kept(policy.capturesDays)})`,
          `  stored bodies       ${String(removed.storedBodies).padStart(8)} cleared (${kept(policy.storedBodiesDays)})`,
          `  flush_metrics rows  ${String(removed.flushMetrics).padStart(8)} deleted (${kept(policy.flushMetricsDays)})`,
          `  recoveries          ${String(removed.recoveries).padStart(8)} deleted (${kept(policy.recoveriesDays)})`,
        ].join("\n")}\n`,
      );
    }
  } finally {
    await handle.close();
  }
  return EXIT.ok;
}
