/**
 * The client's capture outbox: turns a finished tool call into a capture and queues it, in order with
 * the flush requests, on the ordered outbox (outbox.ts: one at a time, retried with backoff, spooled to
 * survive a crash). Everything here is synchronous for the agent; sending happens in the background.
 */
import {
  captureTurn,
  type AgentMessage,
  type CapturedBatch,
  type CondenseSettings,
  type CondenseState,
} from "@condense/core";
import type { BackoffPolicy } from "./backoff.ts";
import type { ScheduleBackground } from "./background-schedule.ts";
import { CaptureSpool } from "./capture-spool.ts";
import type { Emit } from "./client-events.ts";
import type { FlushRequestBody } from "./flush-request.ts";
import { Outbox, type CaptureAck, type FlushAck, type OutboxItem } from "./outbox.ts";
import { NOT_HANDED_OFF, type SummarizerHandOff } from "./summarizer-handoff.ts";
import { CondenseHttpError, type Transport } from "./transport.ts";

/** How often a drain that gives up on an unreachable service or a stalled outbox checks for it. */
const STALL_CHECK_MS = 25;

export interface CaptureOutbox {
  /** Capture one finished turn against `state`; null when it holds nothing to capture. */
  capture(
    turn: { message: AgentMessage; toolResults: readonly AgentMessage[]; turnIndex: number; now: number },
    state: CondenseState,
    settings: CondenseSettings,
  ): { captureId: string | null; batch: CapturedBatch } | null;
  /** Queue batches found on the branch (a resend), chunked so one POST stays under the API's body limit. */
  enqueueBatches(batches: readonly CapturedBatch[]): void;
  enqueueFlush(body: Omit<FlushRequestBody, "flushId">): void;
  readonly size: number;
  readonly degraded: boolean;
  /**
   * Wait until everything queued has been acknowledged, at most `timeoutMs`. `stalled`, checked as it
   * waits, gives up early; `idleMs` gives up once that long has passed with no item acknowledged (a
   * backlog the service is taking one item after another is waited for, up to `timeoutMs`).
   */
  drain(timeoutMs: number, options?: { stalled?: () => boolean; idleMs?: number }): Promise<boolean>;
  close(): void;
}

export function openCaptureOutbox(o: {
  transport: Transport;
  sessionId: string;
  spoolPath?: string;
  backoff: BackoffPolicy;
  handOff: SummarizerHandOff | null;
  schedule?: ScheduleBackground;
  emit: Emit;
}): CaptureOutbox {
  const { emit, handOff } = o;
  const outbox = new Outbox({
    transport: o.transport,
    sessionId: o.sessionId,
    ...(o.spoolPath ? { spool: new CaptureSpool(o.spoolPath) } : {}),
    backoff: o.backoff,
    ...(o.schedule ? { schedule: o.schedule } : {}),
    onCaptureAcked: (captureId: string, ack: CaptureAck) =>
      emit({ type: "capture-acked", captureId, accepted: ack.accepted, duplicates: ack.duplicates }),
    onFlushAccepted: (ack: FlushAck) =>
      emit({ type: "flush-accepted", flushId: ack.flushId, trigger: ack.trigger, cursor: ack.cursor }),
    onSendError: (error: unknown, item: OutboxItem, willRetry: boolean) => {
      // The service restarted and forgot the session's model: hand it off again; the outbox retries the flush.
      if (handOff && error instanceof CondenseHttpError && error.code === NOT_HANDED_OFF) void handOff.send();
      emit({ type: "error", where: `send ${item.kind}`, error, willRetry });
    },
  });

  return {
    capture(turn, state, settings) {
      const batch = captureTurn(turn, state, settings);
      if (!batch) return null;
      return { captureId: outbox.enqueueCapture([batch]), batch };
    },
    enqueueBatches(batches) {
      // Chunked so one POST stays well under the API's body limit; ids stay deterministic per chunk.
      for (let i = 0; i < batches.length; i += 50) outbox.enqueueCapture(batches.slice(i, i + 50));
    },
    enqueueFlush(body) {
      outbox.enqueueFlush(body);
    },
    get size() {
      return outbox.size;
    },
    get degraded() {
      return outbox.degraded;
    },
    async drain(timeoutMs, { stalled, idleMs } = {}) {
      if (outbox.size === 0) return true;
      if (stalled?.()) return false;
      let timer: NodeJS.Timeout | undefined;
      let check: NodeJS.Timeout | undefined;
      let settled = outbox.settled;
      let lastProgress = Date.now();
      const done = await Promise.race([
        outbox.drain().then(() => true),
        new Promise<boolean>((resolve) => {
          timer = setTimeout(() => resolve(false), timeoutMs);
          timer.unref?.();
          if (stalled || idleMs !== undefined) {
            check = setInterval(() => {
              if (stalled?.()) return resolve(false);
              if (idleMs === undefined) return;
              if (outbox.settled !== settled) {
                settled = outbox.settled;
                lastProgress = Date.now();
              } else if (Date.now() - lastProgress >= idleMs) resolve(false);
            }, STALL_CHECK_MS);
            check.unref?.();
          }
        }),
      ]);
      clearTimeout(timer);
      clearInterval(check);
      return done;
    },
    close() {
      outbox.close();
    },
  };
}
