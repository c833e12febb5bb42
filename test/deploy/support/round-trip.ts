/**
 * The smallest real use of a running fleet, over HTTP only: a tenant and a key through the admin
 * API, one captured batch, a flush, and the state the worker committed for it.
 */
import { randomBytes, randomUUID } from "node:crypto";

export interface RoundTrip {
  tenantId: string;
  sessionId: string;
  state: { toVersion: number; records: { key: string; shortRef: string }[]; summaries: { id: string; text: string }[] };
}

async function call(
  method: string,
  url: string,
  token: string,
  body?: unknown,
): Promise<{ status: number; json: any }> {
  const r = await fetch(url, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
    },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await r.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, json };
}

export async function captureFlushState(apiUrl: string, adminKey: string, timeoutMs = 60_000): Promise<RoundTrip> {
  const tenantId = `deploy_${randomBytes(4).toString("hex")}`;
  const sessionId = `s-${randomBytes(4).toString("hex")}`;
  const tenant = await call("POST", `${apiUrl}/v1/admin/tenants`, adminKey, { id: tenantId, name: tenantId });
  if (tenant.status !== 201) throw new Error(`create tenant: ${tenant.status} ${JSON.stringify(tenant.json)}`);
  const key = await call("POST", `${apiUrl}/v1/admin/tenants/${tenantId}/keys`, adminKey, { label: "deploy-test" });
  if (key.status !== 201) throw new Error(`create key: ${key.status} ${JSON.stringify(key.json)}`);
  const apiKey = key.json.key as string;
  const output = Array.from({ length: 80 }, (_, i) => `line ${i}: compiled layout check ${"x".repeat(40)}`).join("\n");
  const captures = await call("POST", `${apiUrl}/v1/sessions/${sessionId}/captures`, apiKey, {
    captureId: "cap-1",
    batches: [
      {
        turnIndex: 0,
        timestamp: 1_700_000_000_000,
        assistantText: "listing the build output",
        toolCalls: [
          {
            toolCallId: "call_1",
            toolName: "bash",
            args: { command: "ls -R dist" },
            resultText: output,
            isError: false,
            resultTimestamp: 1_700_000_000_100,
          },
          {
            toolCallId: "call_2",
            toolName: "read",
            args: { path: "package.json" },
            resultText: output.toUpperCase(),
            isError: false,
            resultTimestamp: 1_700_000_000_200,
          },
        ],
      },
    ],
  });
  if (captures.status !== 200 || captures.json.accepted !== 2)
    throw new Error(`captures: ${captures.status} ${JSON.stringify(captures.json)}`);
  const flush = await call("POST", `${apiUrl}/v1/sessions/${sessionId}/flushes`, apiKey, {
    trigger: "manual",
    flushId: randomUUID(),
    settings: { minBatchChars: 1 },
  });
  if (flush.status !== 202) throw new Error(`flush: ${flush.status} ${JSON.stringify(flush.json)}`);
  const until = Date.now() + timeoutMs;
  let last: any;
  while (Date.now() < until) {
    const state = await call("GET", `${apiUrl}/v1/sessions/${sessionId}/state?since=0`, apiKey);
    if (state.status !== 200) throw new Error(`state: ${state.status} ${JSON.stringify(state.json)}`);
    last = state.json;
    if (last.records?.length === 2 && last.summaries?.length > 0) return { tenantId, sessionId, state: last };
    await new Promise((r) => setTimeout(r, 250));
  }
  const status = await call("GET", `${apiUrl}/v1/sessions/${sessionId}/status`, apiKey);
  throw new Error(
    `no committed state after ${timeoutMs} ms: state ${JSON.stringify(last)}, status ${JSON.stringify(status.json)}`,
  );
}
