/**
 * Which of V8's WebAssembly compilers runs PGlite's Postgres. V8 first compiles each function it
 * calls with its baseline compiler, then recompiles the ones that get hot with its optimizing
 * compiler on background threads. For Postgres that second tier is a burst of one to two CPU-seconds
 * in the first seconds of a process, on up to four threads at once, and it keeps recompiling as new
 * queries get hot; it pays back only after thousands of statements (the optimized code runs them
 * about a fifth faster).
 *
 * `baseline` keeps PGlite on the first tier: the right choice for processes that run beside an agent
 * or run a short burst of statements (the per-user local service, `condense replay`). `optimizing`
 * is V8's default, for a long-lived embedded service with steady traffic. The choice is process-wide
 * and applies to WebAssembly compiled after the call, so it is made before the first PGlite starts.
 */
import { setFlagsFromString } from "node:v8";

export type PgliteWasmTier = "baseline" | "optimizing";

export function setPgliteWasmTier(tier: PgliteWasmTier): void {
  setFlagsFromString(tier === "baseline" ? "--liftoff-only" : "--no-liftoff-only");
}
