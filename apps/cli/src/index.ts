/** @condense/cli: the `condense` command, and the replay engine for programmatic use (benchmarks, tests). */
export { runCli } from "./main.ts";
export { COMMANDS } from "./commands.ts";
export {
  replaySession,
  type ReplayOptions,
  type ReplayResult,
  type CallSample,
  type ReplayProgress,
} from "./replay/replay-session.ts";
export { loadSession, withTimestamps, type LoadedSession } from "./replay/load-session.ts";
export { priceOf, DEFAULT_PRICE_MODEL, type ModelPrice } from "./replay/price-model.ts";
export { pairingViolations } from "./replay/pairing-check.ts";
export { renderTextReport } from "./replay/report-text.ts";
export { renderHtmlReport, contextPlotSvg } from "./replay/report-html.ts";
