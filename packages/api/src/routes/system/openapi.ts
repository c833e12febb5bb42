/**
 * GET /openapi.json (the OpenAPI 3.1 document, error vocabulary included) and GET /docs (Redoc's
 * rendering of it, the renderer served from node_modules). The document is built once, on first request.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../app-env.ts";
import { DOCS_CSP, REDOC_BUNDLE_PATH, redocBundle, renderDocsPage } from "./docs-page.ts";

export const OPENAPI_INFO = {
  title: "Condense API",
  version: "1.0.0",
  description:
    "Context condensation for fleets of coding agents: capture tool calls, request flushes, pull state deltas, recover originals. " +
    "Authenticate with `Authorization: Bearer <tenant API key>`; admin routes take the admin key.",
};

export function registerOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", {
    type: "http",
    scheme: "bearer",
    description: "Tenant API key (ck_…)",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminKey", {
    type: "http",
    scheme: "bearer",
    description: "The admin key (CONDENSE_ADMIN_KEY)",
  });
  let doc: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  const build = () =>
    (doc ??= app.getOpenAPI31Document({
      openapi: "3.1.0",
      info: OPENAPI_INFO,
      servers: [{ url: "/", description: "This server" }],
      tags: [
        {
          name: "sessions",
          description:
            "What an agent's client does: capture tool calls, request flushes, pull state, recover originals.",
        },
        { name: "fleet", description: "Figures across a tenant's sessions." },
        { name: "admin", description: "Tenants and API keys (admin key: CONDENSE_ADMIN_KEY)." },
        { name: "system", description: "Health and readiness probes." },
      ],
    }));
  app.get("/openapi.json", (c) => {
    c.set("routeName", "/openapi.json");
    return c.json(build());
  });
  app.get("/docs", (c) => {
    c.set("routeName", "/docs");
    c.header("Content-Security-Policy", DOCS_CSP);
    return c.html(renderDocsPage(OPENAPI_INFO.title));
  });
  app.get(REDOC_BUNDLE_PATH, (c) => {
    c.set("routeName", REDOC_BUNDLE_PATH);
    c.header("Content-Type", "text/javascript; charset=utf-8");
    c.header("Cache-Control", "public, max-age=86400");
    return c.body(redocBundle());
  });
}
