/** Building captures, flush requests and flush runs for the processor suites. */
import type { CapturedBatch, CapturedToolCall } from "@condense/core";
import { createFlushRequest, ensureTenant, insertCaptures, type Db, type FlushRequest } from "@condense/db";
import type { Summarizer } from "@condense/summarizer";
import { runFlush, type FlushHooks, type FlushRunResult } from "../../src/index.ts";

export const TENANT = "acme";
export const T0 = 1_700_000_000_000;

/** A call whose output is `size` characters long (default: well over minBatchChars). */
export function call(id: string, ts: number, size = 1500, extra: Partial<CapturedToolCall> = {}): CapturedToolCall {
  const line = `${id} line of output for the worker suite\n`;
  const text = line.repeat(Math.ceil(size / line.length)).slice(0, size);
  return {
    toolCallId: id,
    toolName: "bash",
    args: { command: `run ${id}` },
    resultText: text,
    isError: false,
    resultTimestamp: ts,
    ...extra,
  };
}

export function batch(
  turnIndex: number,
  calls: CapturedToolCall[],
  assistantText = `turn ${turnIndex}`,
): CapturedBatch {
  return { turnIndex, timestamp: T0 + turnIndex * 1000, assistantText, toolCalls: calls };
}

export async function setupTenant(db: Db, tenantId = TENANT): Promise<void> {
  await ensureTenant(db, { id: tenantId });
}

export async function capture(
  db: Db,
  sessionId: string,
  batches: CapturedBatch[],
  captureId = `cap-${Math.random().toString(36).slice(2)}`,
  tenantId = TENANT,
) {
  return insertCaptures(db, { tenantId, sessionId, captureId, batches });
}

export async function requestFlush(
  db: Db,
  sessionId: string,
  opts: { settings?: Record<string, unknown>; chains?: unknown[]; trigger?: string; tenantId?: string } = {},
): Promise<FlushRequest> {
  return createFlushRequest(db, {
    tenantId: opts.tenantId ?? TENANT,
    sessionId,
    trigger: opts.trigger ?? "manual",
    metrics: { openCycleThinkingTokens: 10, largestChainSharePct: 20, frontierGapTokens: 300 },
    chains: opts.chains ?? [],
    settings: opts.settings ?? {},
  });
}

export async function runRequest(
  db: Db,
  summarizer: Summarizer,
  request: FlushRequest,
  opts: { attempt?: number; maxAttempts?: number; hooks?: FlushHooks; signal?: AbortSignal; workerId?: string } = {},
): Promise<FlushRunResult> {
  return runFlush(
    { db, summarizer, workerId: opts.workerId ?? "test-worker", ...(opts.hooks ? { hooks: opts.hooks } : {}) },
    {
      payload: {
        tenantId: request.tenantId,
        sessionId: request.sessionId,
        flushRequestId: request.id,
        cursor: request.cursor,
      },
      attempt: opts.attempt ?? 1,
      maxAttempts: opts.maxAttempts ?? 5,
      enqueuedAt: Date.now(),
      startedAt: Date.now(),
      signal: opts.signal ?? new AbortController().signal,
    },
  );
}

/** Capture, request and run in one go. */
export async function flushNow(
  db: Db,
  summarizer: Summarizer,
  sessionId: string,
  batches: CapturedBatch[],
  settings: Record<string, unknown> = {},
  chains: unknown[] = [],
) {
  if (batches.length > 0) await capture(db, sessionId, batches);
  const request = await requestFlush(db, sessionId, { settings, chains });
  return { request, result: await runRequest(db, summarizer, request) };
}
