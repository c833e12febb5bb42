/**
 * One summarizer "worker" process for the fleet breaker test: a real summarizer over a Redis breaker
 * store, driven by JSON commands on stdin, answering (and logging) as JSON lines on stdout.
 */
import { createInterface } from "node:readline";
import { Redis } from "ioredis";
import { createRedisBreakerStore } from "../../src/breaker-redis.ts";
import { createSummarizer } from "../../src/summarizer.ts";
import { fakeModel, fastConfig, sampleBatch } from "./fixtures.ts";

const env = (k: string) => {
  const v = process.env[k];
  if (!v) throw new Error(`fleet-worker needs ${k}`);
  return v;
};
const out = (o: unknown) => process.stdout.write(`${JSON.stringify(o)}\n`);

const redis = new Redis(env("REDIS_URL"), { maxRetriesPerRequest: 2 });
const baseUrl = env("OPENAI_BASE_URL");
const summarizer = createSummarizer(
  fastConfig({
    summarizerModel: "fake-openai/primary",
    summarizerFallbackModel: "fake-openai/backup",
    customModels: [fakeModel(baseUrl, "primary"), fakeModel(baseUrl, "backup")],
    retries: 0,
    breakerCooldownMs: Number(env("COOLDOWN_MS")),
  }),
  {
    breakerStore: createRedisBreakerStore(redis, env("BREAKER_PREFIX")),
    workerId: env("WORKER_ID"),
    logger: {
      info: (obj, msg) => out({ log: "info", msg, ...obj }),
      warn: (obj, msg) => out({ log: "warn", msg, ...obj }),
      error: (obj, msg) => out({ log: "error", msg, ...obj }),
    },
  },
);

for await (const line of createInterface({ input: process.stdin })) {
  const cmd = JSON.parse(line) as { cmd: "run" | "state" | "exit"; count?: number };
  if (cmd.cmd === "exit") break;
  if (cmd.cmd === "state") out({ reply: "state", state: await summarizer.fallbackState() });
  if (cmd.cmd === "run") {
    const results = await Promise.all(
      Array.from({ length: cmd.count ?? 1 }, (_, i) =>
        summarizer.summarizeBatch(sampleBatch(`w${i}`), { refs: [`t${2 * i + 1}`, `t${2 * i + 2}`] }),
      ),
    );
    out({
      reply: "run",
      results: results.map((r) => ({
        bodySource: r.bodySource,
        events: r.events,
        probes: r.attempts.filter((a) => a.probe).length,
      })),
    });
  }
}
await redis.quit();
// stdin and pooled HTTP sockets would keep the process alive; the parent waits for this exit.
process.exit(0);
