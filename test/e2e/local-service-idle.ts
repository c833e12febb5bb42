/**
 * Waiting for the local service to settle, read over its Unix socket with plain node:http (nothing of
 * Condense's), so the tree-driver extension can use it inside pi as well as the suites outside it:
 * a session is settled when its status shows no flush request queued or running.
 */
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";

/** GET a JSON document from the local service of `dataDir` with the directory's tenant key. */
function localGet(dataDir: string, path: string): Promise<unknown> {
  const key = readFileSync(join(dataDir, "api-key"), "utf8").trim();
  return new Promise((resolve, reject) => {
    const req = request(
      { socketPath: join(dataDir, "service.sock"), path, headers: { authorization: `Bearer ${key}` }, timeout: 5_000 },
      (res) => {
        let body = "";
        res.on("data", (d: Buffer) => {
          body += d.toString();
        });
        res.on("end", () => {
          if ((res.statusCode ?? 500) >= 300) reject(new Error(`GET ${path}: ${res.statusCode} ${body}`));
          else resolve(JSON.parse(body));
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error(`GET ${path}: timeout`)));
    req.on("error", reject);
    req.end();
  });
}

async function settled(dataDir: string, sessionId: string | undefined): Promise<boolean> {
  const ids =
    sessionId !== undefined
      ? [sessionId]
      : ((await localGet(dataDir, "/v1/sessions?limit=100")) as { sessions: { sessionId: string }[] }).sessions.map(
          (s) => s.sessionId,
        );
  for (const id of ids) {
    const status = (await localGet(dataDir, `/v1/sessions/${encodeURIComponent(id)}/status`)) as {
      queuedFlushRequests: number;
    };
    if (status.queuedFlushRequests > 0) return false;
  }
  return true;
}

/**
 * Resolves once the local service of `dataDir` has no queued flush request for the session (every
 * session when none is named); false on timeout.
 */
export async function waitLocalIdle(dataDir: string, sessionId?: string, timeoutMs = 90_000): Promise<boolean> {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    try {
      if (await settled(dataDir, sessionId)) return true;
    } catch {
      /* the service is starting, between requests or restarting: ask again */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  return false;
}
