/** `condense replay <session-file>`: the main job. See replay/replay-session.ts for what is measured. */
import { writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { CliError, EXIT } from "../cli-error.ts";
import type { CliIo } from "../cli-io.ts";
import { intFlag, parseFlags } from "../parse-flags.ts";
import { loadSession } from "../replay/load-session.ts";
import { DEFAULT_PRICE_MODEL, priceOf } from "../replay/price-model.ts";
import { createProgress } from "../replay/progress.ts";
import { renderHtmlReport } from "../replay/report-html.ts";
import { renderTextReport } from "../replay/report-text.ts";
import { replaySession, type ReplayResult } from "../replay/replay-session.ts";
import { summarizerEnvFromFlags } from "../summarizer-flags.ts";
import { parseSettingsFlag } from "../settings-flag.ts";

export const REPLAY_HELP = `condense replay <session-file> [options]

Replays a recorded agent session turn by turn through the whole Condense pipeline (client -> API ->
queue -> worker -> summarizer -> state -> render) on an embedded service (PGlite in a temporary
directory, in-process queue) and reports what the model would have been sent with and without
Condense: context tokens per call, tokens reclaimed, summarizer calls, dedup hits, chains
compressed, and a cache-aware cost estimate.

Session files: pi (JSONL v1/v3), Claude Code (JSONL), Codex CLI (rollout JSONL), SWE-agent (.traj).
Unreadable lines are skipped and listed; the rest is replayed.

Options:
  --json                      print the full result as JSON on stdout (no table)
  --html <out.html>           also write a self-contained HTML report with a plot
  --summarizer-model <p/id>   summarize with this model (default: the deterministic summarizer,
                              no model and no key needed); e.g. anthropic/claude-haiku-4-5
  --summarizer-base-url <url> an OpenAI-compatible endpoint serving --summarizer-model
  --summarizer-api <api>      openai-completions (default) or anthropic-messages, with --summarizer-base-url
  --summarizer-api-key-env <VAR>  env var holding the endpoint's key (with --summarizer-base-url)
  --price-model <p/id>        list prices for the cost estimate (default ${DEFAULT_PRICE_MODEL})
  --context-window <tokens>   context window the trigger policy sees (default: the price model's)
  --settings <json>           session settings, e.g. '{"autoBudgetThreshold":0.3}' to also flush
                              inside a long run when the context passes 30% of the window
                              (default: flush when the agent ends its reply)
  --data-dir <dir>            keep the embedded service's data here instead of a temp dir
  --flush-timeout-ms <ms>     longest wait for one flush (default 120000)
  --skip-oracle-replay        do not replay the oracle's best schedule (about half the time); the
                              policy's share of it is then the turn model's, not two replayed bills
  -h, --help                  this help

Exit codes: 0 ok · 1 replay failed or an invariant was violated · 2 bad command line · 3 unusable input
`;

interface Flags {
  json?: boolean;
  html?: string;
  "summarizer-model"?: string;
  "summarizer-base-url"?: string;
  "summarizer-api"?: string;
  "summarizer-api-key-env"?: string;
  "price-model"?: string;
  "context-window"?: string;
  "data-dir"?: string;
  "flush-timeout-ms"?: string;
  settings?: string;
  "skip-oracle-replay"?: boolean;
}

export async function replayCommand(argv: string[], io: CliIo): Promise<number> {
  const {
    values: f,
    positionals,
    help,
  } = parseFlags<Flags>("replay", argv, {
    json: { type: "boolean" },
    html: { type: "string" },
    "summarizer-model": { type: "string" },
    "summarizer-base-url": { type: "string" },
    "summarizer-api": { type: "string" },
    "summarizer-api-key-env": { type: "string" },
    "price-model": { type: "string" },
    "context-window": { type: "string" },
    "data-dir": { type: "string" },
    "flush-timeout-ms": { type: "string" },
    settings: { type: "string" },
    "skip-oracle-replay": { type: "boolean" },
  });
  if (help) {
    io.out(REPLAY_HELP);
    return EXIT.ok;
  }
  if (positionals.length !== 1) {
    throw new CliError(
      positionals.length === 0 ? "missing <session-file>" : `expected one session file, got ${positionals.length}`,
      EXIT.usage,
      "usage: condense replay <session-file> [--json] [--html out.html]; see condense replay --help",
    );
  }
  const price = priceOf(f["price-model"] ?? DEFAULT_PRICE_MODEL);
  const summarizerEnv = summarizerEnvFromFlags(f, io.env);
  const contextWindow =
    f["context-window"] !== undefined ? intFlag("context-window", f["context-window"], 0, 1000) : undefined;
  const flushTimeoutMs = intFlag("flush-timeout-ms", f["flush-timeout-ms"], 120_000, 100);

  const settings: unknown = f.settings !== undefined ? parseSettingsFlag(f.settings) : undefined;
  const session = loadSession(positionals[0]!);
  if (session.skipped.length > 0) {
    const lines = session.skipped
      .map((s) => (s.line > 0 ? String(s.line) : "?"))
      .slice(0, 20)
      .join(", ");
    io.err(
      `warning: partial replay: ${session.skipped.length} unreadable line(s) skipped (lines ${lines}${session.skipped.length > 20 ? ", ..." : ""}); first: ${session.skipped[0]!.reason}\n`,
    );
  }
  const progress = createProgress(io.err, io.errIsTTY, "replay");
  let result: ReplayResult;
  try {
    result = await replaySession(session, {
      price,
      summarizerEnv,
      flushTimeoutMs,
      ...(f["skip-oracle-replay"] ? { replayOracle: false } : {}),
      ...(settings !== undefined ? { settings } : {}),
      ...(contextWindow !== undefined ? { contextWindow } : {}),
      ...(f["data-dir"] ? { dataDir: resolve(f["data-dir"]) } : {}),
      onProgress: (p) => progress.update(p),
    });
  } finally {
    progress.done();
  }
  if (f.html) {
    const out = resolve(f.html);
    writeFileSync(out, renderHtmlReport(result));
    io.err(`HTML report written to ${out}\n`);
  }
  io.out(f.json ? `${JSON.stringify(result, null, 2)}\n` : renderTextReport(result));
  return result.invariantViolations.length > 0 || result.renderFailures.length > 0 ? EXIT.failure : EXIT.ok;
}
