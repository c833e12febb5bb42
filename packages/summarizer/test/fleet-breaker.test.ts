/**
 * The outage breaker across a fleet: two worker processes (spawned through tsx) share one Redis key
 * prefix. One switches the fleet to the fallback, the other follows without touching the primary;
 * exactly one probe of the primary per cooldown across both; recovery announced once.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { randomUUID } from "node:crypto";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { startFakeProvider, type FakeProvider } from "@condense/test-support/fake-provider";
import { createMemoryBreakerStore } from "../src/breaker-memory.ts";
import { createSummarizer } from "../src/summarizer.ts";
import { GOOD_SUMMARY, fakeModel, fastConfig, sampleBatch } from "./support/fixtures.ts";

const redisUrl = inject("redisUrl");
if (!redisUrl)
  console.warn(
    "\n!!! fleet-breaker.test.ts: no Redis (REDIS_URL unset): the two-process breaker suite is SKIPPED !!!\n",
  );

const COOLDOWN_MS = 1500;
const WORKER = fileURLToPath(new URL("./support/fleet-worker.ts", import.meta.url));
const REPO_ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface RunResult {
  bodySource: string;
  events: { kind: string }[];
  probes: number;
}

class Worker {
  private waiting: ((v: Record<string, unknown>) => void)[] = [];
  readonly logs: Record<string, unknown>[] = [];
  constructor(readonly proc: ChildProcessWithoutNullStreams) {
    createInterface({ input: proc.stdout }).on("line", (line) => {
      const msg = JSON.parse(line) as Record<string, unknown>;
      if (msg.log) this.logs.push(msg);
      else this.waiting.shift()?.(msg);
    });
    proc.stderr.on("data", (d) => process.stderr.write(`[fleet-worker] ${d}`));
  }
  private send(cmd: object): Promise<Record<string, unknown>> {
    return new Promise((resolve) => {
      this.waiting.push(resolve);
      this.proc.stdin.write(`${JSON.stringify(cmd)}\n`);
    });
  }
  async run(count: number): Promise<RunResult[]> {
    return (await this.send({ cmd: "run", count })).results as RunResult[];
  }
  async state(): Promise<{ mode: string }> {
    return (await this.send({ cmd: "state" })).state as { mode: string };
  }
  stop(): Promise<void> {
    return new Promise((resolve) => {
      if (this.proc.exitCode !== null) return resolve();
      const killer = setTimeout(() => this.proc.kill("SIGKILL"), 5000);
      this.proc.once("exit", () => {
        clearTimeout(killer);
        resolve();
      });
      this.proc.stdin.write(`${JSON.stringify({ cmd: "exit" })}\n`);
    });
  }
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

describe.skipIf(!redisUrl)("fleet breaker across two worker processes (Redis)", () => {
  const prefix = `condense-test:${randomUUID()}:`;
  let fake: FakeProvider;
  let redis: Redis;
  let a: Worker;
  let b: Worker;
  let primaryUp = false;

  beforeAll(async () => {
    fake = await startFakeProvider((req) =>
      req.model === "primary" && !primaryUp ? { kind: "status", status: 503 } : { kind: "ok", text: GOOD_SUMMARY },
    );
    redis = new Redis(redisUrl);
    const start = (id: string) =>
      new Worker(
        spawn(process.execPath, ["--import", "tsx", WORKER], {
          cwd: REPO_ROOT,
          env: {
            ...process.env,
            REDIS_URL: redisUrl,
            BREAKER_PREFIX: prefix,
            OPENAI_BASE_URL: fake.openaiBaseUrl,
            COOLDOWN_MS: String(COOLDOWN_MS),
            WORKER_ID: id,
          },
        }),
      );
    a = start("worker-a");
    b = start("worker-b");
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    await redis.quit();
    await fake.close();
  });

  const primaryRequests = () => fake.requests.filter((r) => r.model === "primary").length;
  const count = (rs: RunResult[], kind: string) => rs.flatMap((r) => r.events).filter((e) => e.kind === kind).length;

  it("shares the switch, one probe per cooldown, and one recovery announcement", async () => {
    // Worker A meets the outage and switches the fleet.
    const first = await a.run(1);
    expect(first[0]!.bodySource).toBe("llm-fallback");
    expect(count(first, "fallback-entered")).toBe(1);
    expect(primaryRequests()).toBe(1);

    // Worker B follows the shared state: no primary traffic, no second announcement.
    const followers = await b.run(3);
    expect(followers.map((r) => r.bodySource)).toEqual(["llm-fallback", "llm-fallback", "llm-fallback"]);
    expect(count(followers, "fallback-entered")).toBe(0);
    expect(primaryRequests()).toBe(1);
    expect((await b.state()).mode).toBe("fallback");

    // After one cooldown, six parallel calls across both processes send exactly one probe (still down).
    await sleep(COOLDOWN_MS + 100);
    const round = (await Promise.all([a.run(3), b.run(3)])).flat();
    expect(primaryRequests()).toBe(2);
    expect(round.reduce((n, r) => n + r.probes, 0)).toBe(1);
    expect(round.every((r) => r.bodySource === "llm-fallback")).toBe(true);

    // Within the new cooldown: no probe at all.
    const quiet = (await Promise.all([a.run(2), b.run(2)])).flat();
    expect(quiet.reduce((n, r) => n + r.probes, 0)).toBe(0);
    expect(primaryRequests()).toBe(2);

    // The primary comes back: the next cooldown's single probe succeeds and recovery is announced once.
    primaryUp = true;
    await sleep(COOLDOWN_MS + 100);
    const recovery = (await Promise.all([a.run(3), b.run(3)])).flat();
    expect(recovery.reduce((n, r) => n + r.probes, 0)).toBe(1);
    expect(count(recovery, "primary-recovered")).toBe(1);
    const announcements = [...a.logs, ...b.logs].filter((l) => l.event === "summarizer.primary-recovered");
    expect(announcements).toHaveLength(1);

    // Everyone is back on the primary.
    const after = (await Promise.all([a.run(2), b.run(2)])).flat();
    expect(after.every((r) => r.bodySource === "llm-primary")).toBe(true);
    expect((await a.state()).mode).toBe("primary");
    expect((await b.state()).mode).toBe("primary");
    expect([...a.logs, ...b.logs].filter((l) => l.event === "summarizer.fallback-entered")).toHaveLength(1);
  });
});

describe("fleet breaker, in-memory variant (embedded mode: two summarizers share one store)", () => {
  it("shares the switch, one probe per cooldown, and one recovery announcement", async () => {
    let primaryUp = false;
    const fake = await startFakeProvider((req) =>
      req.model === "primary" && !primaryUp ? { kind: "status", status: 503 } : { kind: "ok", text: GOOD_SUMMARY },
    );
    try {
      let clock = 0;
      const store = createMemoryBreakerStore();
      const config = fastConfig({
        summarizerModel: "fake-openai/primary",
        summarizerFallbackModel: "fake-openai/backup",
        retries: 0,
        breakerCooldownMs: 10_000,
        customModels: [fakeModel(fake.openaiBaseUrl, "primary"), fakeModel(fake.openaiBaseUrl, "backup")],
      });
      const [a, b] = ["a", "b"].map((id) =>
        createSummarizer(config, { breakerStore: store, now: () => clock, workerId: id }),
      );
      const run = async (n: number) =>
        (
          await Promise.all(
            [a!, b!].flatMap((s) =>
              Array.from({ length: n }, (_, i) => s.summarizeBatch(sampleBatch(`m${i}`), { refs: ["t1", "t2"] })),
            ),
          )
        ).flat();
      const primary = () => fake.requests.filter((r) => r.model === "primary").length;
      const probes = (rs: { attempts: { probe: boolean }[] }[]) =>
        rs.reduce((n, r) => n + r.attempts.filter((x) => x.probe).length, 0);

      expect((await a!.summarizeBatch(sampleBatch(), { refs: ["t1", "t2"] })).events.map((e) => e.kind)).toContain(
        "fallback-entered",
      );
      expect((await b!.fallbackState()).mode).toBe("fallback");
      const follow = await run(2);
      expect(primary()).toBe(1);
      expect(follow.every((r) => r.bodySource === "llm-fallback")).toBe(true);

      clock += 10_000;
      expect(probes(await run(3))).toBe(1);
      expect(primary()).toBe(2);

      primaryUp = true;
      clock += 10_000;
      const recovery = await run(3);
      expect(probes(recovery)).toBe(1);
      expect(recovery.flatMap((r) => r.events).filter((e) => e.kind === "primary-recovered")).toHaveLength(1);
      expect((await run(1)).every((r) => r.bodySource === "llm-primary")).toBe(true);
    } finally {
      await fake.close();
    }
  });
});
