/** The API's pino logger: JSON lines on stdout, secrets redacted. */
import { pino, type Logger } from "pino";

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const options: pino.LoggerOptions = {
    level,
    base: { service: "condense-api" },
    redact: { paths: ["req.headers.authorization", "authorization", "apiKey", "plaintextKey"], censor: "[redacted]" },
  };
  return destination ? pino(options, destination) : pino(options);
}
