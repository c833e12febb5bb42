/** The CLI run in this process with its stdout and stderr captured, as the suites call it. */
import type { CliIo } from "../../src/cli-io.ts";
import { runCli } from "../../src/main.ts";

export async function runCaptured(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const io: CliIo = {
    out: (t) => {
      out += t;
    },
    err: (t) => {
      err += t;
    },
    errIsTTY: false,
    env,
  };
  const code = await runCli(args, io);
  return { code, out, err };
}
