/**
 * What the API answers while it is still waiting for Postgres or Redis at startup: alive
 * (/healthz 200), not ready (/readyz 503, naming the dependency and its last error), and for
 * everything else 503 `unavailable` in the one error shape, with Retry-After, so clients retry.
 */
import { randomUUID } from "node:crypto";
import type { StartupState } from "@condense/db";

export function startingFetch(state: StartupState): (req: Request) => Response {
  return (req) => {
    const path = new URL(req.url).pathname;
    if (path === "/healthz") return Response.json({ status: "ok" });
    const waiting = state.waitingFor ?? "startup";
    if (path === "/readyz") {
      return Response.json(
        { status: "starting", waitingFor: state.waitingFor, lastError: state.lastError, attempts: state.attempts },
        { status: 503 },
      );
    }
    const why = state.lastError ? ` (${state.lastError})` : "";
    return Response.json(
      {
        error: {
          code: "unavailable",
          message: `the API is starting: waiting for ${waiting}${why}; retry shortly`,
          requestId: req.headers.get("x-request-id") ?? randomUUID(),
        },
      },
      { status: 503, headers: { "retry-after": "1" } },
    );
  };
}
