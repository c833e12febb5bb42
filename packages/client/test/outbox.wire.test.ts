/**
 * The ordered outbox against a real HTTP server speaking the API's wire: captures and flushes leave
 * in the order they were made, a 5xx or an unreachable service is retried with backoff until it is
 * acknowledged, a 4xx is final (the item is dropped, the queue moves on), captures queued back to back
 * (a backlog) leave in one POST, and captures spooled by a process that died before they were
 * acknowledged are sent by the next one.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { CapturedBatch } from "@condense/core";
import { oneCallBatch } from "@condense/test-support/captures";
import type { BackoffPolicy } from "../src/backoff.ts";
import { CaptureSpool } from "../src/capture-spool.ts";
import type { FlushRequestBody } from "../src/flush-request.ts";
import { MERGE_MAX_BATCHES, MERGE_MAX_RESULT_CHARS, Outbox, type OutboxItem } from "../src/outbox.ts";
import { createTransport } from "../src/transport.ts";
import { startWireServer, until, type WireServer } from "./support/wire-server.ts";

const batch = (i: number): CapturedBatch => oneCallBatch(i, `out ${i}`, { i });
const flushBody = { trigger: "manual" } as unknown as Omit<FlushRequestBody, "flushId">;
/** An automatic flush request carrying the chains opened at these user timestamps. */
const autoFlush = (trigger: string, ...chainStarts: number[]) =>
  ({
    trigger,
    chains: chainStarts.map((startUserTimestamp) => ({ startUserTimestamp })),
  }) as unknown as Omit<FlushRequestBody, "flushId">;
/** No jitter: the delay before retry n is initialMs * factor^n / 2 at least. */
const BACKOFF: BackoffPolicy = { initialMs: 80, maxMs: 2_000, factor: 2, random: () => 0 };

let wire: WireServer;
let dir: string;
const outboxes: Outbox[] = [];
beforeEach(async () => {
  wire = await startWireServer();
  dir = mkdtempSync(join(tmpdir(), "condense-outbox-wire-"));
});
afterEach(async () => {
  for (const o of outboxes.splice(0)) o.close();
  await wire.stop();
  rmSync(dir, { recursive: true, force: true });
});

function open(extra: Partial<ConstructorParameters<typeof Outbox>[0]> = {}): Outbox {
  const o = new Outbox({
    transport: createTransport({ baseUrl: wire.url, apiKey: "k", timeoutMs: 2_000 }),
    sessionId: "s",
    backoff: BACKOFF,
    ...extra,
  });
  outboxes.push(o);
  return o;
}
const sent = (route: string) => wire.requests.filter((r) => r.route === route);
const capturedCalls = () =>
  sent("captures").map((r) => (r.body as { batches: CapturedBatch[] }).batches.map((b) => b.toolCalls[0]!.toolCallId));

describe("outbox over the wire", () => {
  it("delivers captures and flushes in the order they were made, each once", async () => {
    const o = open();
    const a = o.enqueueCapture([batch(1)]);
    const flushId = o.enqueueFlush(flushBody);
    const b = o.enqueueCapture([batch(2), batch(3)]);
    await o.drain();
    expect(wire.requests.map((r) => r.route)).toEqual(["captures", "flushes", "captures"]);
    expect(sent("captures").map((r) => (r.body as { captureId: string }).captureId)).toEqual([a, b]);
    expect((sent("flushes")[0]!.body as { flushId: string }).flushId).toBe(flushId);
    expect(capturedCalls()).toEqual([["c1"], ["c2", "c3"]]);
    // the same occurrences are not queued twice
    expect(o.enqueueCapture([batch(1)])).toBe(a);
    await o.drain();
    expect(sent("captures")).toHaveLength(2);
    expect(o.size).toBe(0);
  });

  it("a flush still unsent when a newer one is queued is superseded by it; the captures keep their order", async () => {
    // The service is away while the agent works on: its captures and flush requests queue up.
    wire.refuse("captures", 503, "unavailable", 2);
    const o = open();
    const a = o.enqueueCapture([batch(1)]);
    o.enqueueFlush(autoFlush("roi", 10));
    const b = o.enqueueCapture([batch(2)]);
    const newer = o.enqueueFlush(autoFlush("roi", 10, 20));
    await o.drain();
    expect(wire.requests.map((r) => r.route)).toEqual(["captures", "captures", "captures", "captures", "flushes"]);
    expect([...new Set(sent("captures").map((r) => (r.body as { captureId: string }).captureId))]).toEqual([a, b]);
    expect(sent("flushes").map((r) => (r.body as { flushId: string }).flushId)).toEqual([newer]);
    expect(o.size).toBe(0);
  });

  it("a queued flush is still sent when it is manual, or carries a chain the newer one holds back", async () => {
    wire.refuse("captures", 503, "unavailable", 2);
    const o = open();
    o.enqueueCapture([batch(1)]);
    const manual = o.enqueueFlush(flushBody);
    const ceiling = o.enqueueFlush(autoFlush("budget", 10, 20));
    const roi = o.enqueueFlush(autoFlush("roi", 20));
    await o.drain();
    expect(sent("flushes").map((r) => (r.body as { flushId: string }).flushId)).toEqual([manual, ceiling, roi]);
    expect(o.size).toBe(0);
  });

  it("retries a 5xx with growing backoff, keeps the order behind it, and recovers", async () => {
    wire.refuse("captures", 503, "unavailable", 2);
    const errors: boolean[] = [];
    const o = open({ onSendError: (_e, _i, willRetry) => errors.push(willRetry) });
    o.enqueueCapture([batch(1)]);
    o.enqueueFlush(flushBody);
    await until(() => o.degraded, 2_000, "degraded");
    await o.drain();
    expect(errors).toEqual([true, true]);
    expect(wire.requests.map((r) => r.route)).toEqual(["captures", "captures", "captures", "flushes"]);
    const at = sent("captures").map((r) => r.at);
    // The backoff's floors (initialMs 80, factor 2, no jitter): retry 0 waits at least 40 ms, retry 1 at
    // least 80 ms. Lower bounds only, so a slow host cannot make them fail; an immediate retry does.
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(38);
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(78);
    expect(o.degraded).toBe(false);
    expect(o.lastError).toBeNull();
  });

  it("waits out an unreachable service and delivers once it is back", async () => {
    await wire.stop();
    const o = open();
    o.enqueueCapture([batch(1)]);
    await until(() => o.degraded, 2_000, "degraded");
    expect(o.lastError).toMatch(/POST \/v1\/sessions\/s\/captures/);
    expect(o.size).toBe(1);
    await wire.start();
    await o.drain();
    expect(capturedCalls()).toEqual([["c1"]]);
    expect(o.degraded).toBe(false);
  });

  it("a 4xx is final: the item is dropped and reported once, the queue moves on", async () => {
    // Refused twice: the two captures queued together leave in one POST (refused), then each alone.
    wire.refuse("captures", 400, "validation_failed", 2);
    const errors: { kind: OutboxItem["kind"]; willRetry: boolean }[] = [];
    const spool = new CaptureSpool(join(dir, "spool.jsonl"));
    const o = open({ spool, onSendError: (_e, item, willRetry) => errors.push({ kind: item.kind, willRetry }) });
    o.enqueueCapture([batch(1)]);
    o.enqueueCapture([batch(2)]);
    await o.drain();
    expect(errors).toEqual([{ kind: "capture", willRetry: false }]);
    // the refused one was sent once on its own, never again; the next one went through
    expect(capturedCalls()).toEqual([["c1", "c2"], ["c1"], ["c2"]]);
    expect(spool.readPending()).toEqual([]);
  });

  it("captures queued back to back (a backlog) leave in one POST up to a flush; each is acknowledged and spooled off", async () => {
    await wire.stop();
    const path = join(dir, "spool.jsonl");
    const acked: string[] = [];
    const o = open({ spool: new CaptureSpool(path), onCaptureAcked: (id) => acked.push(id) });
    const ids = [1, 2, 3].map((i) => o.enqueueCapture([batch(i)])!);
    const flushId = o.enqueueFlush(flushBody);
    const last = o.enqueueCapture([batch(4), batch(5)])!;
    await until(() => new CaptureSpool(path).readPending().length === 4, 2_000, "spooled");
    await wire.start();
    await o.drain();
    // One POST for the three before the flush, under the first one's id, in their order; the flush after
    // them; then the capture made after the flush.
    expect(wire.requests.map((r) => r.route)).toEqual(["captures", "flushes", "captures"]);
    expect(sent("captures").map((r) => (r.body as { captureId: string }).captureId)).toEqual([ids[0], last]);
    expect(capturedCalls()).toEqual([
      ["c1", "c2", "c3"],
      ["c4", "c5"],
    ]);
    expect((sent("flushes")[0]!.body as { flushId: string }).flushId).toBe(flushId);
    expect(acked).toEqual([...ids, last]);
    expect(new CaptureSpool(path).readPending()).toEqual([]);
    expect(o.size).toBe(0);
  });

  it("a backlog merges at most MERGE_MAX_BATCHES batches and MERGE_MAX_RESULT_CHARS of results per POST", async () => {
    await wire.stop();
    const o = open();
    for (let i = 0; i < MERGE_MAX_BATCHES + 5; i++) o.enqueueCapture([batch(i)]);
    const big = batch(900);
    big.toolCalls[0]!.resultText = "y".repeat(MERGE_MAX_RESULT_CHARS);
    o.enqueueCapture([big]);
    o.enqueueCapture([batch(901)]);
    await wire.start();
    await o.drain();
    expect(capturedCalls().map((calls) => calls.length)).toEqual([MERGE_MAX_BATCHES, 5, 1, 1]);
    expect(capturedCalls().flat()).toEqual([
      ...Array.from({ length: MERGE_MAX_BATCHES + 5 }, (_, i) => `c${i}`),
      "c900",
      "c901",
    ]);
  });

  it("a restarted process resends what the spool holds unacknowledged, under the same capture id", async () => {
    const path = join(dir, "spool.jsonl");
    await wire.stop();
    const first = open({ spool: new CaptureSpool(path) });
    const id = first.enqueueCapture([batch(7)]);
    await until(() => new CaptureSpool(path).readPending().length === 1, 2_000, "spooled");
    first.close(); // the process dies with the capture unacknowledged
    expect(new CaptureSpool(path).readPending().map((p) => p.captureId)).toEqual([id]);

    await wire.start();
    const second = open({ spool: new CaptureSpool(path) });
    await until(() => sent("captures").length === 1, 3_000, "resent capture");
    await second.drain();
    expect((sent("captures")[0]!.body as { captureId: string }).captureId).toBe(id);
    expect(capturedCalls()).toEqual([["c7"]]);
    // acknowledged: a third start has nothing to resend
    expect(new CaptureSpool(path).readPending()).toEqual([]);
  });
});
