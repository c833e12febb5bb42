/**
 * The ordered outbox between the agent and the API. Captures and flush requests leave in the order they
 * were made (a flush must never overtake a capture it is meant to include), one at a time, retried with
 * backoff until the API acknowledges them. Enqueueing is synchronous and never touches the network, so
 * the agent's turn never waits on the service; while the service is down the items simply wait here
 * (and, for captures, in the spool file), and of the flush requests queued meanwhile only the newest is sent. No capture is dropped for its size: large results travel
 * out of line (body-travel.ts), and a capture the API still finds too large is sent in halves.
 */
import { randomUUID } from "node:crypto";
import type { BodyPartRequest, CapturesAnswer, CapturesRequest, FlushAnswer } from "@condense/contract";
import { storableBatch, type CapturedBatch } from "@condense/core";
import { backoffDelay, DEFAULT_BACKOFF, sleep, type BackoffPolicy } from "./backoff.ts";
import { nextEventLoopTurn, type ScheduleBackground } from "./background-schedule.ts";
import { planTravel } from "./body-travel.ts";
import { captureIdFor } from "./capture-id.ts";
import type { CaptureSpool } from "./capture-spool.ts";
import type { FlushRequestBody } from "./flush-request.ts";
import { CondenseHttpError, type Transport } from "./transport.ts";
import { NOT_HANDED_OFF } from "./summarizer-handoff.ts";

export type OutboxItem =
  /**
   * `uploaded`: parts already acknowledged (`key#part`), so a retry does not send them again. `alone`:
   * the API refused it for good in one POST with the captures after it: it is sent on its own.
   */
  | { kind: "capture"; captureId: string; batches: CapturedBatch[]; uploaded?: Set<string>; alone?: boolean }
  | { kind: "flush"; body: FlushRequestBody };

export interface OutboxEvents {
  onCaptureAcked?(captureId: string, response: CaptureAck): void;
  onFlushAccepted?(response: FlushAck, body: FlushRequestBody): void;
  /** A send failed; `willRetry` false means the item was dropped (the API refused it for good). */
  onSendError?(error: unknown, item: OutboxItem, willRetry: boolean): void;
}

/** The API's answers, as the contract defines them. */
export type CaptureAck = CapturesAnswer;
export type FlushAck = FlushAnswer;

export interface OutboxOptions extends OutboxEvents {
  transport: Transport;
  sessionId: string;
  spool?: CaptureSpool;
  backoff?: BackoffPolicy;
  /** When queued items are prepared and sent (background-schedule.ts; default: the next event-loop turn). */
  schedule?: ScheduleBackground;
}

/**
 * Consecutive captures waiting at the head of the queue (the service is starting, or catching up after
 * an outage) leave in one POST, up to this many batches and result characters: a backlog costs the
 * service one request and one transaction instead of one per capture. A capture as large as that goes alone.
 */
export const MERGE_MAX_BATCHES = 50;
export const MERGE_MAX_RESULT_CHARS = 256 * 1024;

type CaptureItem = Extract<OutboxItem, { kind: "capture" }>;

const resultChars = (item: CaptureItem) => {
  let n = 0;
  for (const b of item.batches) for (const c of b.toolCalls) n += c.resultText.length;
  return n;
};

export class Outbox {
  private readonly queue: OutboxItem[] = [];
  /** Capture ids queued or acknowledged in this process; a repeat is not queued twice. */
  private readonly known = new Set<string>();
  private running: Promise<void> | null = null;
  private readonly closing = new AbortController();
  private consecutiveFailures = 0;
  /** Items that left the queue (acknowledged, or refused for good): a drain sees progress by it. */
  private settledCount = 0;
  private lastErrorText: string | null = null;
  private readonly path: string;
  /** Captures queued but not yet made storable and spooled (done off the agent's turn, see enqueueCapture). */
  private readonly unprepared: Extract<OutboxItem, { kind: "capture" }>[] = [];
  private scheduled = false;

  constructor(private readonly options: OutboxOptions) {
    this.path = `/v1/sessions/${encodeURIComponent(options.sessionId)}`;
    if (options.spool) {
      for (const p of options.spool.readPending()) this.pushSpooled(p.captureId, p.batches);
    }
  }

  /**
   * Queue a capture POST; returns its id (the same id for the same occurrences). Only what keeps the
   * order and the id happens here, on the agent's turn (the id hashes the occurrence keys alone).
   * Making the texts storable, the spool append and the send run in the background (`options.schedule`:
   * the next event-loop turn, or once the host's next model request is out), while the agent waits on its model; a crash in between loses nothing the host's session log
   * does not hold, and the restart rescan resends it.
   */
  enqueueCapture(raw: CapturedBatch[]): string | null {
    if (raw.length === 0) return null;
    const captureId = captureIdFor(this.options.sessionId, raw);
    if (this.known.has(captureId)) return captureId;
    this.known.add(captureId);
    const item: Extract<OutboxItem, { kind: "capture" }> = { kind: "capture", captureId, batches: raw };
    this.queue.push(item);
    this.unprepared.push(item);
    this.schedule();
    return captureId;
  }

  enqueueFlush(body: Omit<FlushRequestBody, "flushId">): string {
    const flushId = randomUUID();
    this.queue.push({ kind: "flush", body: { ...body, flushId } });
    this.schedule();
    return flushId;
  }

  /** Storable texts and the spool line for every capture queued since the last call (in order). */
  private prepare(): void {
    for (const item of this.unprepared.splice(0)) {
      // NUL and lone surrogates cannot be stored; replace them rather than have the API refuse the capture.
      item.batches = item.batches.map(storableBatch);
      this.options.spool?.append({ captureId: item.captureId, batches: item.batches });
    }
  }

  /** Prepare and send in the background (`options.schedule`), never inside the caller's synchronous work. */
  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    (this.options.schedule ?? nextEventLoopTurn)(() => {
      this.scheduled = false;
      this.prepare();
      this.kick();
    });
  }

  get pendingCaptures(): number {
    let n = 0;
    for (const i of this.queue) if (i.kind === "capture") n++;
    return n;
  }
  get size(): number {
    return this.queue.length;
  }
  /** True while the head of the queue is failing (the service is unreachable or erroring). */
  get degraded(): boolean {
    return this.consecutiveFailures > 0;
  }
  get lastError(): string | null {
    return this.lastErrorText;
  }
  /** How many items have left the queue so far (acknowledged or dropped); grows while the service takes them. */
  get settled(): number {
    return this.settledCount;
  }

  /** Resolves once everything queued so far has been acknowledged (or dropped), or on close. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 && !this.closing.signal.aborted) {
      this.kick();
      await this.running;
    }
  }

  close(): void {
    // what was captured but not yet spooled reaches the spool before the outbox stops
    this.prepare();
    this.closing.abort();
    this.options.spool?.close();
  }

  /** A capture read back from the spool: already storable and spooled. */
  private pushSpooled(captureId: string, batches: CapturedBatch[]): void {
    this.known.add(captureId);
    this.queue.push({ kind: "capture", captureId, batches });
    this.schedule();
  }

  private kick(): void {
    if (this.running || this.closing.signal.aborted) return;
    this.running = this.run().finally(() => {
      this.running = null;
    });
  }

  private async run(): Promise<void> {
    while (this.queue.length > 0 && !this.closing.signal.aborted) {
      const item = this.queue[0]!;
      if (item.kind === "flush" && supersededByLater(item.body, this.queue)) {
        // A flush request still unsent when a newer one was queued (the service was away): the newer one
        // follows every capture this one follows and carries every chain it carries, so only it is sent.
        // A backlog after an outage shrinks to one flush. A manual request is always sent: the user asked.
        this.queue.shift();
        this.settledCount++;
        continue;
      }
      // The captures that go with the head (one POST), and how many queue items they are.
      const run = item.kind === "capture" ? this.captureRun(item) : [];
      try {
        await this.send(item, run);
        const sent = Math.max(1, run.length);
        this.queue.splice(0, sent);
        this.settledCount += sent;
        this.consecutiveFailures = 0;
        this.lastErrorText = null;
      } catch (err) {
        // A service that lost the session's handed-off model refuses its flush until the client hands it off again.
        const retry = !(err instanceof CondenseHttpError) || err.retryable || err.code === NOT_HANDED_OFF;
        this.lastErrorText = err instanceof Error ? err.message : String(err);
        // Refused for good together with the captures after it: each goes on its own again, so a refusal
        // (a size, a bad capture) is decided for that capture alone, as if it had never been merged.
        if (!retry && item.kind === "capture" && run.length > 1) {
          item.alone = true;
          continue;
        }
        // Too large for the API even after the large results left it (a very long list of calls):
        // send it as two halves instead of losing it. Each half has its own deterministic id.
        if (
          !retry &&
          item.kind === "capture" &&
          err instanceof CondenseHttpError &&
          err.status === 413 &&
          item.batches.length > 1
        ) {
          this.options.onSendError?.(err, item, true);
          this.splitHead(item);
          continue;
        }
        this.options.onSendError?.(err, item, retry);
        if (!retry) {
          this.queue.shift();
          this.settledCount++;
          if (item.kind === "capture") this.options.spool?.ack(item.captureId);
          continue;
        }
        await sleep(
          backoffDelay(this.options.backoff ?? DEFAULT_BACKOFF, this.consecutiveFailures++),
          this.closing.signal,
        );
      }
    }
    if (this.queue.length === 0 && this.options.spool) this.options.spool.compact([]);
  }

  /**
   * The head capture and the captures queued right behind it (no flush request between them: a flush
   * never overtakes a capture, nor a capture a flush) that fit one POST with it (MERGE_MAX_*).
   */
  private captureRun(head: CaptureItem): CaptureItem[] {
    const run = [head];
    if (head.alone) return run;
    let batches = head.batches.length;
    let chars = resultChars(head);
    for (let i = 1; i < this.queue.length; i++) {
      const next = this.queue[i]!;
      if (next.kind !== "capture" || next.alone) break;
      const c = resultChars(next);
      if (batches + next.batches.length > MERGE_MAX_BATCHES || chars + c > MERGE_MAX_RESULT_CHARS) break;
      run.push(next);
      batches += next.batches.length;
      chars += c;
    }
    return run;
  }

  /** Replace the capture at the head of the queue by its two halves (spooled before the whole is acked). */
  private splitHead(item: Extract<OutboxItem, { kind: "capture" }>): void {
    const mid = Math.ceil(item.batches.length / 2);
    const halves = [item.batches.slice(0, mid), item.batches.slice(mid)].map((batches) => ({
      kind: "capture" as const,
      captureId: captureIdFor(this.options.sessionId, batches),
      batches,
    }));
    for (const h of halves) {
      this.known.add(h.captureId);
      this.options.spool?.append({ captureId: h.captureId, batches: h.batches });
    }
    this.queue.splice(0, 1, ...halves);
    this.options.spool?.ack(item.captureId);
  }

  private async send(item: OutboxItem, run: CaptureItem[]): Promise<void> {
    const { transport } = this.options;
    if (item.kind === "capture") {
      // (an item still unprepared is in `unprepared`; preparing the others with it only comes sooner)
      if (this.unprepared.length > 0) this.prepare();
      // A run of several captures travels as one POST under the head's id: its batches in queue order
      // (the service stores each call once by its occurrence key, so a retry with more behind it only
      // adds the newcomers), acknowledged together, each capture's spool line with it.
      const batches = run.length > 1 ? run.flatMap((r) => r.batches) : item.batches;
      // Large results travel out of line: their parts first, then the capture that refers to them.
      const travel = planTravel(batches);
      for (const u of travel.uploads) {
        for (const p of u.parts) {
          const id = `${u.key}#${p.part}`;
          if (item.uploaded?.has(id)) continue;
          await transport.request(
            "POST",
            `${this.path}/bodies`,
            { key: u.key, part: p.part, start: p.start, text: p.text } satisfies BodyPartRequest,
            this.closing.signal,
          );
          (item.uploaded ??= new Set()).add(id);
        }
      }
      const ack = await transport.request<CaptureAck>(
        "POST",
        `${this.path}/captures`,
        { captureId: item.captureId, batches: travel.batches } satisfies CapturesRequest,
        this.closing.signal,
      );
      for (const r of run.length > 1 ? run : [item]) {
        this.options.spool?.ack(r.captureId);
        this.options.onCaptureAcked?.(r.captureId, ack);
      }
      return;
    }
    try {
      const ack = await transport.request<FlushAck>("POST", `${this.path}/flushes`, item.body, this.closing.signal);
      this.options.onFlushAccepted?.(ack, item.body);
    } catch (err) {
      // A session the API has never seen has no captures: there is nothing to flush.
      if (err instanceof CondenseHttpError && err.status === 404) return;
      throw err;
    }
  }
}

/**
 * Whether a later queued flush request asks for everything `body` asks for: `body` is not a manual
 * request, and every chain it carries (by its opening user message) is carried by that later request
 * (the roi policy may hold back a chain that an earlier budget-ceiling request carried).
 */
function supersededByLater(body: FlushRequestBody, queue: readonly OutboxItem[]): boolean {
  if (body.trigger === "manual") return false;
  const own = body.chains.map((c) => c.startUserTimestamp);
  return queue.some((later, i) => {
    if (i === 0 || later.kind !== "flush") return false;
    const carried = new Set(later.body.chains.map((c) => c.startUserTimestamp));
    return own.every((t) => carried.has(t));
  });
}
