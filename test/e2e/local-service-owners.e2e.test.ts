/**
 * One data directory, three clients, one owner at a time. Three real clients (@condense/client over
 * the Unix socket, each starting the local service when nothing answers) capture and flush
 * concurrently; the owner is SIGKILLed while a flush is in flight (the summarizer, a local fake
 * provider, is answering slowly); the clients' next requests start a new owner, which takes the lock
 * over. Afterwards every capture a client saw acknowledged is in the database, every session's
 * flushes completed, and no short ref was minted twice.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createCondenseClient, localServiceHost, type CondenseClient } from "@condense/client";
import type { AgentMessage } from "@condense/core";
import { createDb } from "@condense/db";
import { startFakeLlm, type FakeLlm } from "@condense/test-support/fake-llm";
import { turn } from "@condense/test-support/messages";
import { ownerPid, SERVICE_DAEMON, serviceStarts, stopLocalService, waitFor } from "./local-service-support.ts";

const TURNS = 24;
const big = (n: number, tag: string) => `${tag} ${"y".repeat(60)}\n`.repeat(n);

function seqTurn(session: string, i: number): { message: AgentMessage; toolResults: AgentMessage[] } {
  const id = `call_${(i % 3) + 1}`; // providers reuse ids: the occurrence is (id, result timestamp)
  return turn(
    1_000_000 + i * 10,
    { id, name: "bash", args: { command: `seq ${i} ${session}` } },
    big(30, `${session}-${i}`),
  );
}

describe("three clients on one data directory, the owner killed mid-flush", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-owners-"));
  const dataDir = join(root, "data");
  let llm: FakeLlm | undefined;
  afterAll(async () => {
    await stopLocalService(dataDir).catch(() => {});
    await llm?.close();
    // The stopped service's last log line may land after its lock is released: retry a busy directory.
    rmSync(root, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  });

  it("keeps every acknowledged capture, completes the flushes and mints each ref once", {
    timeout: 400_000,
  }, async () => {
    llm = await startFakeLlm({ scenarios: {}, summarizerDelayMs: 1_500 });
    const env = {
      ...process.env,
      CONDENSE_SERVICE_IDLE_MS: "120000",
      CONDENSE_SUMMARIZER_CONFIG: JSON.stringify({
        summarizerModel: "fake/fake-model",
        retries: 0,
        customModels: [
          { provider: "fake", id: "fake-model", api: "openai-completions", baseUrl: llm.baseUrl, apiKey: "fake-key" },
        ],
      }),
    };
    const sessions = ["owners-a", "owners-b", "owners-c"];
    const acked = new Map<string, Set<string>>(sessions.map((s) => [s, new Set<string>()]));
    const clients: CondenseClient[] = sessions.map((sessionId) =>
      createCondenseClient({
        sessionId,
        host: localServiceHost({
          dataDir,
          command: { file: process.execPath, args: [SERVICE_DAEMON] },
          env,
          startTimeoutMs: 120_000,
        }),
        spoolPath: join(root, `${sessionId}.spool.jsonl`),
        backoff: { initialMs: 50, maxMs: 500, factor: 2 },
        pollMs: 200,
        onEvent: (e) => {
          if (e.type === "capture-acked") acked.get(sessionId)!.add(e.captureId);
        },
      }),
    );
    await Promise.all(clients.map((c) => c.start([], { syncTimeoutMs: 120_000 })));
    expect(serviceStarts(dataDir)).toHaveLength(1);
    const firstOwner = ownerPid(dataDir)!;

    const branches = sessions.map(() => [] as AgentMessage[]);
    const captureIds = sessions.map(() => [] as string[]);
    let killed = false;
    const drive = async (k: number) => {
      for (let i = 0; i < TURNS; i++) {
        const t = seqTurn(sessions[k]!, i);
        branches[k]!.push(t.message, ...t.toolResults);
        const r = clients[k]!.capture({ ...t, turnIndex: i });
        if (r.captureId) captureIds[k]!.push(r.captureId);
        if (i % 6 === 5) clients[k]!.flushNow(branches[k]!);
        // Owner killed while a summarizer call (a flush) is in flight, half way through.
        if (k === 0 && i === TURNS / 2 && !killed) {
          await waitFor("a flush in flight", () => llm!.summarizerInFlight > 0, 120_000, 10);
          process.kill(firstOwner, "SIGKILL");
          killed = true;
        }
        await new Promise((r) => setTimeout(r, 40));
      }
      clients[k]!.flushNow(branches[k]!);
    };
    await Promise.all(sessions.map((_, k) => drive(k)));
    expect(killed).toBe(true);
    for (const c of clients) expect(await c.drain(180_000)).toBe(true);
    // A new owner took over the directory from the killed one.
    const starts = serviceStarts(dataDir);
    expect(starts.length).toBe(2);
    expect(starts[1]).not.toBe(firstOwner);
    expect(ownerPid(dataDir)).toBe(starts[1]);
    // Wait until every session's flushes are done (the killed flush is re-run by the new owner).
    let statuses: Record<string, unknown>[] | undefined;
    await waitFor(
      "all flushes to complete",
      () => {
        void Promise.all(clients.map((c) => c.status())).then(
          (all) => {
            statuses = all;
          },
          () => {},
        );
        return statuses?.every(
          (s) =>
            ((s.captures as Record<string, number> | undefined)?.pending ?? 1) === 0 && s.queuedFlushRequests === 0,
        );
      },
      180_000,
      500,
    );
    for (const c of clients) await c.close();
    await stopLocalService(dataDir);

    const db = await createDb(`pglite:${join(dataDir, "pglite")}`);
    try {
      for (const [k, s] of sessions.entries()) {
        // Every capture the agent made was acknowledged (some also resent by flushNow, under new ids);
        // every acknowledged tool call is stored, each occurrence once.
        for (const id of captureIds[k]!) expect(acked.get(s)!.has(id), id).toBe(true);
        const stored = await db.pglite!.query<{ capture_id: string; result_text: string }>(
          "select capture_id, result_text from captures where session_id = $1",
          [s],
        );
        for (const r of stored.rows) expect(acked.get(s)!.has(r.capture_id)).toBe(true);
        expect(stored.rows.length).toBe(TURNS);
        for (let i = 0; i < TURNS; i++)
          expect(
            stored.rows.some((r) => r.result_text.startsWith(`${s}-${i} `)),
            `${s} turn ${i}`,
          ).toBe(true);
      }
      const dupRefs = await db.pglite!.query<{ session_id: string; short_ref: string; n: number }>(
        "select session_id, short_ref, count(*)::int as n from tool_call_records where short_ref is not null group by 1, 2 having count(*) > 1",
      );
      expect(dupRefs.rows).toEqual([]);
      const refs = await db.pglite!.query<{ n: number }>(
        "select count(*)::int as n from tool_call_records where short_ref is not null",
      );
      expect(refs.rows[0]!.n).toBeGreaterThan(0);
    } finally {
      await db.close();
    }
  });
});
