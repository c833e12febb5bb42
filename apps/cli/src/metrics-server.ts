/**
 * A worker's Prometheus endpoint: GET /metrics (the worker's registry: flush runs, queue wait,
 * summarizer attempts, cost and the fallback gauge) and GET /healthz. Workers are scaled without
 * fixed names, so Prometheus finds them by DNS and scrapes this port on each.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { Registry } from "prom-client";

export interface MetricsServer { port: number; close(): Promise<void> }

export async function startMetricsServer(registry: Registry, port: number, host = "0.0.0.0"): Promise<MetricsServer> {
  const server: Server = createServer((req, res) => {
    if (req.method === "GET" && req.url === "/metrics") {
      registry.metrics().then(
        (body) => { res.writeHead(200, { "Content-Type": registry.contentType }); res.end(body); },
        (err: unknown) => { res.writeHead(500, { "Content-Type": "text/plain" }); res.end(String(err)); },
      );
      return;
    }
    if (req.method === "GET" && req.url === "/healthz") { res.writeHead(200, { "Content-Type": "text/plain" }); res.end("ok\n"); return; }
    res.writeHead(404, { "Content-Type": "text/plain" });
    res.end("not found\n");
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => resolve());
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
