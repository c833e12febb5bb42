/**
 * A worker's Prometheus endpoint: GET /metrics (the worker's registry: flush runs, queue wait,
 * summarizer attempts, cost and the fallback gauge), GET /healthz and GET /readyz (what the worker
 * still waits for at startup: the database or Redis, with the last error). Workers are scaled without
 * fixed names, so Prometheus finds them by DNS and scrapes this port on each.
 *
 * Binds 127.0.0.1 unless CONDENSE_WORKER_METRICS_HOST says otherwise: the endpoint has no auth, and
 * only a container (docker-compose.yml sets 0.0.0.0 there) needs it on every interface.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { cliConfig, VARIABLES } from "@condense/config";
import type { Registry } from "prom-client";

export interface MetricsServer {
  port: number;
  close(): Promise<void>;
}

export const DEFAULT_METRICS_HOST = VARIABLES.CONDENSE_WORKER_METRICS_HOST.default;

export function metricsHost(env: Record<string, string | undefined>): string {
  return cliConfig(env).metricsHost;
}

/** Readiness as a probe sees it: 200 when ready, else 503 with what the process waits for. */
export type ReadinessProbe = () => { ready: boolean; body: Record<string, unknown> };

export async function startMetricsServer(
  registry: Registry,
  port: number,
  host = DEFAULT_METRICS_HOST,
  readiness?: ReadinessProbe,
): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/metrics") {
      registry.metrics().then(
        (body) => {
          res.writeHead(200, { "Content-Type": registry.contentType });
          res.end(body);
        },
        (err: unknown) => {
          res.writeHead(500, { "Content-Type": "text/plain" });
          res.end(String(err));
        },
      );
      return;
    }
    if (req.method === "GET" && req.url === "/healthz") {
      res.writeHead(200, { "Content-Type": "text/plain" });
      res.end("ok\n");
      return;
    }
    if (req.method === "GET" && req.url === "/readyz" && readiness) {
      const r = readiness();
      res.writeHead(r.ready ? 200 : 503, { "Content-Type": "application/json" });
      res.end(JSON.stringify(r.body));
      return;
    }
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
