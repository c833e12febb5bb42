/**
 * No capture is dropped for its size (issue 17 item 1), at the outbox: a large result leaves the
 * capture and is uploaded in parts first, with a body reference the API can verify; a capture the
 * API still refuses as too large (413) is sent as two halves instead of being dropped.
 */
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import type { CapturedBatch } from "@condense/core";
import { BODY_PART_CHARS, planTravel, splitParts } from "../src/body-travel.ts";
import { Outbox } from "../src/outbox.ts";
import { oneCallBatch } from "@condense/test-support/captures";
import { CondenseHttpError, type Transport } from "../src/transport.ts";

const batch = (i: number, text: string): CapturedBatch => oneCallBatch(i, text);

describe("capture travel", () => {
  it("parts rebuild the text and never split a surrogate pair", () => {
    const text = `${"a".repeat(BODY_PART_CHARS - 1)}😀${"b".repeat(10)}`;
    const parts = splitParts(text);
    expect(parts.map((p) => p.text).join("")).toBe(text);
    expect(parts[1]!.start).toBe(BODY_PART_CHARS - 1);
    expect(splitParts("")).toEqual([{ part: 0, start: 0, text: "" }]);
  });

  it("a result over the inline limit travels out of line with a verifiable reference; small ones stay inline", () => {
    const big = "x".repeat(600_000);
    const t = planTravel([batch(0, "small"), batch(1, big)]);
    expect(t.uploads).toHaveLength(1);
    expect(t.uploads[0]).toMatchObject({
      key: "c1@2001",
      chars: big.length,
      sha256: createHash("sha256").update(big).digest("hex"),
    });
    const wire = t.batches as { toolCalls: { resultText: string; body?: unknown }[] }[];
    expect(wire[0]!.toolCalls[0]).toMatchObject({ resultText: "small" });
    expect(wire[1]!.toolCalls[0]).toMatchObject({ resultText: "", body: { parts: 3, chars: big.length } });
    // many results that each fit, but not together: the largest leave until the POST is small
    const many = Array.from({ length: 30 }, (_, i) => batch(i, "y".repeat(200_000 + i)));
    const m = planTravel(many);
    const inline = (m.batches as { toolCalls: { resultText: string }[] }[]).reduce(
      (n, b) => n + b.toolCalls[0]!.resultText.length,
      0,
    );
    expect(inline).toBeLessThanOrEqual(4 * 1024 * 1024);
    expect(m.uploads.length).toBeGreaterThan(0);
  });

  it("a capture refused with 413 is sent as two halves, and nothing is dropped", async () => {
    const posted: string[][] = [];
    const transport: Transport = {
      async request<T>(_m: string, path: string, body?: unknown): Promise<T> {
        if (path.endsWith("/captures")) {
          const b = body as { batches: { toolCalls: { toolCallId: string }[] }[] };
          if (b.batches.length > 2) throw new CondenseHttpError(413, "payload_too_large", "too large", false);
          posted.push(b.batches.map((x) => x.toolCalls[0]!.toolCallId));
          return { captureId: "x", accepted: b.batches.length, duplicates: 0, maxSeq: 1 } as T;
        }
        return {} as T;
      },
      stream: async () => {
        throw new Error("no stream");
      },
    };
    const dropped: unknown[] = [];
    const outbox = new Outbox({
      transport,
      sessionId: "s",
      backoff: { initialMs: 1, maxMs: 2, factor: 2 },
      onSendError: (_e, _i, retry) => {
        if (!retry) dropped.push(_i);
      },
    });
    outbox.enqueueCapture(Array.from({ length: 7 }, (_, i) => batch(i, `out ${i}`)));
    await new Promise((r) => setTimeout(r, 20));
    await outbox.drain();
    expect(dropped).toEqual([]);
    expect(posted.flat().sort()).toEqual(["c0", "c1", "c2", "c3", "c4", "c5", "c6"]);
    expect(posted.every((p) => p.length <= 2)).toBe(true);
    outbox.close();
  });
});
