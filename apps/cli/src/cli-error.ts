/**
 * The CLI's one error type: a message for the user, what to do next, and the exit code. Commands
 * throw it; main.ts prints it (no stack trace) and exits with the code.
 */
export const EXIT = {
  ok: 0,
  /** Something failed at run time (service unreachable, replay failed). */
  failure: 1,
  /** The command line was wrong (unknown command or flag, missing argument). */
  usage: 2,
  /** The input could not be used: missing file, unknown format, no messages. */
  input: 3,
} as const;

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.failure,
    readonly hint?: string,
  ) {
    super(message);
    this.name = "CliError";
  }
}
