import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { API_ERROR_CODES, codeToStatus } from "@condense/contract";
import { createConfig, lintFromString } from "@redocly/openapi-core";
import { createHarness, type Harness } from "./support/harness.ts";
import { bodiesWithoutExample, undescribedFields } from "./support/openapi-coverage.ts";

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
    const ops = Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([p, m]) =>
      Object.keys(m).map((verb) => `${verb.toUpperCase()} ${p}`),
    );
    expect(ops.sort()).toEqual(
      [
        "POST /v1/sessions/{sessionId}/captures",
        "POST /v1/sessions/{sessionId}/bodies",
        "POST /v1/sessions/{sessionId}/diagnostics",
        "GET /v1/sessions/{sessionId}/diagnostics",
        "POST /v1/sessions/{sessionId}/flushes",
        "GET /v1/sessions/{sessionId}/state",
        "GET /v1/sessions/{sessionId}/events",
        "POST /v1/sessions/{sessionId}/query",
        "GET /v1/sessions/{sessionId}/status",
        "PUT /v1/sessions/{sessionId}/summarizer",
        "POST /v1/sessions/{sessionId}/imports",
        "GET /v1/sessions",
        "GET /v1/fleet/status",
        "POST /v1/admin/tenants",
        "POST /v1/admin/tenants/{tenantId}/keys",
        "GET /v1/admin/tenants/{tenantId}/keys",
        "POST /v1/admin/tenants/{tenantId}/keys/{keyId}/revoke",
        "POST /v1/admin/tenants/{tenantId}/keys/{keyId}/rotate",
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
    expect(codeSchema.enum.sort()).toEqual([...API_ERROR_CODES].sort());
    expect(Object.keys(codeToStatus).sort()).toEqual([...API_ERROR_CODES].sort());
  });

  it("describes every schema field and parameter, and gives every request body an example", () => {
    expect(undescribedFields(doc)).toEqual([]);
    expect(bodiesWithoutExample(doc)).toEqual([]);
  });

  it("lints clean with Redocly's recommended ruleset (0 errors)", async () => {
    const config = await createConfig({ extends: ["recommended"] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: "openapi.json", config });
    const errors = problems
      .filter((p) => p.severity === "error")
      .map((p) => `${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`);
    expect(errors).toEqual([]);
  });

  it("serves /docs with Redoc from node_modules, nothing from elsewhere", async () => {
    const res = await h.request("/docs");
    expect(res.headers.get("content-type")).toContain("text/html");
    const html = await res.text();
    expect(html).toContain('<script src="/docs/redoc.standalone.js"></script>');
    expect(html).toContain('Redoc.init("/openapi.json"');
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const js = await h.request("/docs/redoc.standalone.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toContain("javascript");
    expect((await js.text()).length).toBeGreaterThan(500_000);
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
