/**
 * The optional on-disk copy of the capture outbox: an append-only JSONL file holding every capture
 * POST before it is sent and an `ack` line once the API has committed it. After a crash the unacked
 * captures are read back and resent. Appends are synchronous (small, local) so a capture enqueued just
 * before the process dies is on disk; a torn last line is skipped on read. The file stays open for
 * appending (one write per line, no open/close per step); emptying it once everything is acknowledged
 * truncates that descriptor, and a rewrite with pending lines (a rename) reopens it.
 */
import {
  closeSync,
  existsSync,
  ftruncateSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { dirname } from "node:path";
import type { CapturedBatch } from "@condense/core";

export interface SpooledCapture {
  captureId: string;
  batches: CapturedBatch[];
}

type SpoolLine = { t: "capture"; captureId: string; batches: CapturedBatch[] } | { t: "ack"; captureId: string };

export class CaptureSpool {
  private fd: number | null = null;

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
      try {
        line = JSON.parse(raw) as SpoolLine;
      } catch {
        continue;
      }
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
    if (pending.length === 0) {
      // Nothing to keep: every line is acknowledged, so an empty file is the same state on disk.
      if (this.fd !== null) ftruncateSync(this.fd, 0);
      else if (existsSync(this.path)) writeFileSync(this.path, "");
      return;
    }
    this.close();
    const tmp = `${this.path}.${process.pid}.tmp`;
    writeFileSync(tmp, pending.map((p) => `${JSON.stringify({ t: "capture", ...p })}\n`).join(""));
    renameSync(tmp, this.path);
  }

  /** Closes the file (a later write reopens it). */
  close(): void {
    if (this.fd === null) return;
    closeSync(this.fd);
    this.fd = null;
  }

  private write(line: SpoolLine): void {
    this.fd ??= openSync(this.path, "a");
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }
}
