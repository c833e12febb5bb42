/**
 * bench:pi's probe, a plain-JavaScript pi extension loaded beside Condense (and alone in bare pi): per
 * agent step, the time on pi's side from a tool's end to the next LLM request's body on the wire
 * (undici's `undici:request:bodySent` channel). That is the part of a step the extension can lengthen
 * (pi's turn_end, context, the request's build and send, and whatever runs on pi's thread meanwhile),
 * without the model's wait and the tool's own run, which dominate the noise of a loaded host.
 * Writes one number per step (ms) to BENCH_PI_PROBE_OUT at shutdown.
 */
import { subscribe } from "node:diagnostics_channel";
import { writeFileSync } from "node:fs";

export default function probe(pi) {
  const out = process.env.BENCH_PI_PROBE_OUT;
  if (!out) return;
  const gaps = [];
  let toolEnd = null;
  pi.on("tool_execution_end", () => {
    toolEnd = performance.now();
  });
  subscribe("undici:request:bodySent", () => {
    if (toolEnd === null) return;
    gaps.push(performance.now() - toolEnd);
    toolEnd = null;
  });
  pi.on("session_shutdown", () => {
    writeFileSync(out, gaps.map((g) => g.toFixed(3)).join("\n"));
  });
}
