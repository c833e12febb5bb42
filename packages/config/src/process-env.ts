/** The only place in the project that touches `process.env` (test/architecture/env-reads.test.ts holds it). */
import type { Env } from "./env-reader.ts";

/** The environment of this process, for entry points to hand to a view (views never read it themselves). */
export function processEnv(): Env {
  return process.env;
}
