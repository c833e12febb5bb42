import { processEnv } from "@condense/config";

/** Where a command writes, so commands can be run in-process by tests with captured output. */
export interface CliIo {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is an interactive terminal (progress bars redraw in place). */
  errIsTTY: boolean;
  env: Record<string, string | undefined>;
}

export function processIo(): CliIo {
  return {
    out: (t) => {
      process.stdout.write(t);
    },
    err: (t) => {
      process.stderr.write(t);
    },
    errIsTTY: process.stderr.isTTY === true,
    env: processEnv(),
  };
}
