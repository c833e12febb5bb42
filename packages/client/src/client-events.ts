/** What the client tells its host (the extension's log, a replay's report), and the guarded emitter. */
import type { Diagnostic, SummaryEntry } from "@condense/core";

export type ClientEvent =
  | { type: "staged"; version: number; newSummaries: SummaryEntry[] }
  | { type: "applied"; version: number; summaries: SummaryEntry[] }
  | { type: "capture-acked"; captureId: string; accepted: number; duplicates: number }
  | { type: "flush-accepted"; flushId: string; trigger: string; cursor: number }
  /** A trigger's flush request was built (off the agent's turn for automatic triggers) and queued. */
  | { type: "flush-queued"; trigger: string; buildMs: number }
  | { type: "diagnostics"; diagnostics: Diagnostic[] }
  | { type: "error"; where: string; error: unknown; willRetry?: boolean };

export type Emit = (event: ClientEvent) => void;

/** An emitter that calls the host's listener; a listener that throws must not break the client. */
export function eventEmitter(onEvent: ((event: ClientEvent) => void) | undefined): Emit {
  return (e) => {
    try {
      onEvent?.(e);
    } catch {
      /* a listener must not break the client */
    }
  };
}
