/**
 * The worker's metrics endpoint has no auth, so it listens on loopback unless
 * CONDENSE_WORKER_METRICS_HOST opens it (docker-compose.yml does, inside the container). Checked on
 * the machine's own non-loopback address where one exists: refused by default, answered when opened.
 */
import { networkInterfaces } from "node:os";
import { Registry } from "prom-client";
import { describe, expect, it } from "vitest";
import { metricsHost, startMetricsServer } from "../src/metrics-server.ts";

const external = Object.values(networkInterfaces())
  .flat()
  .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
if (!external)
  console.warn("[condense] no non-loopback IPv4 address: the worker-metrics exposure check only covers loopback");

async function answers(host: string, port: number): Promise<boolean> {
  try {
    return (await fetch(`http://${host}:${port}/healthz`, { signal: AbortSignal.timeout(3000) })).ok;
  } catch {
    return false;
  }
}

describe("worker metrics bind address", () => {
  it("defaults to 127.0.0.1; CONDENSE_WORKER_METRICS_HOST overrides it", () => {
    expect(metricsHost({})).toBe("127.0.0.1");
    expect(metricsHost({ CONDENSE_WORKER_METRICS_HOST: " " })).toBe("127.0.0.1");
    expect(metricsHost({ CONDENSE_WORKER_METRICS_HOST: "0.0.0.0" })).toBe("0.0.0.0");
  });

  it("by default answers on loopback only", async () => {
    const server = await startMetricsServer(new Registry(), 0, metricsHost({}));
    try {
      expect(await answers("127.0.0.1", server.port)).toBe(true);
      if (external) expect(await answers(external, server.port), `reachable on ${external}`).toBe(false);
    } finally {
      await server.close();
    }
  });

  it.skipIf(!external)(
    "opened with CONDENSE_WORKER_METRICS_HOST=0.0.0.0, answers on the machine's other addresses",
    async () => {
      const server = await startMetricsServer(
        new Registry(),
        0,
        metricsHost({ CONDENSE_WORKER_METRICS_HOST: "0.0.0.0" }),
      );
      try {
        expect(await answers(external!, server.port)).toBe(true);
      } finally {
        await server.close();
      }
    },
  );
});
