/**
 * The optional on-disk copy of the capture outbox: an append-only JSONL file holding every capture
 * POST before it is sent and an `ack` line once the API has committed it. After a crash the unacked
 * captures are read back and resent. Appends are synchronous (small, local) so a capture enqueued just
 * before the process dies is on disk; a torn last line is skipped on read.
 */
import { appendFileSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import type { CapturedBatch } from "@condense/core";

export interface SpooledCapture { captureId: string; batches: CapturedBatch[] }

type SpoolLine = { t: "capture"; captureId: string; batches: CapturedBatch[] } | { t: "ack"; captureId: string };

export class CaptureSpool {
  constructor(readonly path: string) {
    mkdirSync(dirname(path), { recursive: true });
  }

  /** Captures written and never acknowledged, in write order. */
  readPending(): SpooledCapture[] {
    if (!existsSync(this.path)) return [];
    const pending = new Map<string, SpooledCapture>();
    for (const raw of readFileSync(this.path, "utf8").split("\n")) {
      if (!raw.trim()) continue;
      let line: SpoolLine;
      try { line = JSON.parse(raw) as SpoolLine; } catch { continue; }
      if (line.t === "capture" && typeof line.captureId === "string" && Array.isArray(line.batches)) {
        pending.set(line.captureId, { captureId: line.captureId, batches: line.batches });
      } else if (line.t === "ack") pending.delete(line.captureId);
    }
    return [...pending.values()];
  }

  append(capture: SpooledCapture): void {
    this.write({ t: "capture", captureId: capture.captureId, batches: capture.batches });
  }

  ack(captureId: string): void {
    this.write({ t: "ack", captureId });
  }

  /** Rewrite the file with only what is still pending (atomic rename), so it does not grow forever. */
  compact(pending: readonly SpooledCapture[]): void {
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, pending.map((p) => JSON.stringify({ t: "capture", ...p }) + "\n").join(""));
    renameSync(tmp, this.path);
  }

  private write(line: SpoolLine): void {
    appendFileSync(this.path, JSON.stringify(line) + "\n");
  }
}
