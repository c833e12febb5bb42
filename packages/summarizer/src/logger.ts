/** The logging port: pino's call shape (`obj, msg`), so a pino logger can be passed straight in. */
export interface SummarizerLogger {
  info(obj: Record<string, unknown>, msg: string): void;
  warn(obj: Record<string, unknown>, msg: string): void;
  error(obj: Record<string, unknown>, msg: string): void;
}

export const silentLogger: SummarizerLogger = { info() {}, warn() {}, error() {} };
