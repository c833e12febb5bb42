/**
 * Several sessions on one embedded service (`condense replay` runs the oracle's schedule beside the
 * policy's that way, and a fleet's clients share one service): a client given a host is not its owner,
 * so closing the first session's client leaves the service serving the next one. Before the fix, the
 * client's close closed the host it was given: the in-process queue was closed, the next session's
 * captures were still stored but every flush request was recorded and refused with 503 ("could not be
 * enqueued"), retried for ever, and its drain never finished. Both sessions capture the same content:
 * each gets its own summaries and captures (no state from the other session). Real composition root
 * (startSingleProcessService: PGlite, in-process queue, worker, API), real client.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createCondenseClient } from "@condense/client";
import type { AgentMessage } from "@condense/core";
import { startSingleProcessService, type SingleProcessService } from "@condense/service";
import { A, F, R, U } from "@condense/test-support/messages";

const T0 = 1_800_000_000_000;

function turnOf(n: number): {
  message: AgentMessage;
  toolResults: AgentMessage[];
  head: AgentMessage;
  reply: AgentMessage;
} {
  const ts = T0 + n * 10_000;
  return {
    head: U(ts, `task ${n}`, { plain: true }),
    message: A(ts + 1, { id: `call_${n}`, name: "bash", args: { command: `cat file${n}.txt` } }),
    toolResults: [R(ts + 2, `call_${n}`, `${"the same shared file content ".repeat(200)}${n}`, { name: "bash" })],
    reply: F(ts + 3, `done ${n}`),
  };
}

/** One session through the given host: three turns captured, one flush, its summaries applied. */
async function runSession(host: SingleProcessService, sessionId: string) {
  const client = createCondenseClient({
    sessionId,
    host,
    sse: false,
    pollMs: 3_600_000,
    backoff: { initialMs: 20, maxMs: 100, factor: 2, random: () => 0.5 },
  });
  try {
    await client.start([], { syncTimeoutMs: 10_000 });
    const branch: AgentMessage[] = [];
    for (let n = 0; n < 3; n++) {
      const t = turnOf(n);
      branch.push(t.head, t.message, ...t.toolResults, t.reply);
      client.capture({ message: t.message, toolResults: t.toolResults, turnIndex: n });
    }
    expect(client.flushNow(branch).flush).toBe(true);
    const drained = await client.drain(10_000);
    await host.runtime.whenIdle!();
    await client.sync();
    return {
      drained,
      outbox: client.outboxSize,
      summaries: [...client.state.summaries, ...client.stagedSummaries].length,
      status: (await client.status()) as { captures?: Record<string, number>; summaries?: number },
    };
  } finally {
    await client.close();
  }
}

describe("sessions sharing one embedded service", () => {
  let dataDir: string;
  let host: SingleProcessService;

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), "condense-shared-svc-"));
    host = await startSingleProcessService({ dataDir, role: "test", env: {} });
  }, 120_000);

  afterAll(async () => {
    await host?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  it("a second session flushes after the first session's client closed, with state of its own", async () => {
    const first = await runSession(host, "shared-a");
    expect(first.drained).toBe(true);
    expect(first.summaries).toBeGreaterThan(0);
    const second = await runSession(host, "shared-b");
    // The flush request was enqueued and acknowledged (before the fix: 503 for ever, drain false).
    expect(second.drained).toBe(true);
    expect(second.outbox).toBe(0);
    expect(second.summaries).toBe(first.summaries);
    expect(second.status.summaries).toBe(first.status.summaries);
    // The same content in two sessions: each session stores and summarizes its own captures.
    const { maxSeq: _a, ...firstCaptures } = first.status.captures ?? {};
    const { maxSeq: _b, ...secondCaptures } = second.status.captures ?? {};
    expect(secondCaptures).toEqual(firstCaptures);
    expect(firstCaptures.summarized).toBe(3);
    expect(Number(second.status.captures?.deduped ?? 0)).toBe(0);
  }, 120_000);
});
