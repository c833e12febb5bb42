import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorCode, codeToStatus } from "../src/errors/codes.ts";
import { createHarness, type Harness } from "./support/harness.ts";

describe("OpenAPI document, docs page and metrics", () => {
  let h: Harness;
  let doc: any;
  beforeAll(async () => {
    h = await createHarness();
    doc = await (await h.request("/openapi.json")).json();
  });
  afterAll(async () => h?.close());

  it("documents every operation with its security and error responses", () => {
    expect(doc.openapi).toBe("3.1.0");
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, m]) => Object.keys(m).map((verb) => `${verb.toUpperCase()} ${p}`));
    expect(ops.sort()).toEqual(
      [
        "POST /v1/sessions/{sessionId}/captures",
        "POST /v1/sessions/{sessionId}/flushes",
        "GET /v1/sessions/{sessionId}/state",
        "GET /v1/sessions/{sessionId}/events",
        "POST /v1/sessions/{sessionId}/query",
        "GET /v1/sessions/{sessionId}/status",
        "GET /v1/sessions",
        "GET /v1/fleet/status",
        "POST /v1/admin/tenants",
        "POST /v1/admin/tenants/{tenantId}/keys",
        "GET /healthz",
        "GET /readyz",
      ].sort(),
    );
    const capture = doc.paths["/v1/sessions/{sessionId}/captures"].post;
    expect(capture.security).toEqual([{ Bearer: [] }]);
    for (const status of ["400", "401", "404", "413", "415", "429"]) {
      expect(capture.responses[status].content["application/json"].schema.$ref).toBe("#/components/schemas/Error");
    }
    expect(doc.components.securitySchemes.Bearer).toMatchObject({ type: "http", scheme: "bearer" });
  });

  it("lists the error vocabulary as a component, the same codes the handler uses", () => {
    const error = doc.components.schemas.Error;
    const codeSchema = error.properties.error.properties.code;
    expect(codeSchema.enum.sort()).toEqual([...ErrorCode.options].sort());
    expect(Object.keys(codeToStatus).sort()).toEqual([...ErrorCode.options].sort());
  });

  it("renders a self-contained docs page listing the operations", async () => {
    const res = await h.request("/docs");
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain("/v1/sessions/{sessionId}/captures");
    expect(html).toContain("CapturesRequest");
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href="http/);
  });

  it("exposes Prometheus metrics with bounded route labels", async () => {
    await h.request("/v1/sessions/abc/state");
    await h.request("/definitely/not/here");
    const text = await (await h.request("/metrics")).text();
    expect(text).toContain("# TYPE condense_api_request_duration_seconds histogram");
    expect(text).toMatch(/condense_api_requests_total\{method="GET",route="unmatched",status="404"\} 1/);
    expect(text).not.toContain("/definitely/not/here");
  });
});
