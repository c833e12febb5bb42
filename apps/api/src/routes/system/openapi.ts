/**
 * GET /openapi.json (the OpenAPI 3.1 document, error vocabulary included) and GET /docs (a
 * self-contained HTML rendering of it). The document is built once, on first request.
 */
import type { OpenAPIHono } from "@hono/zod-openapi";
import type { AppEnv } from "../../app-env.ts";
import { renderDocsPage } from "./docs-page.ts";

export const OPENAPI_INFO = {
  title: "Condense API",
  version: "1.0.0",
  description:
    "Context condensation for fleets of coding agents: capture tool calls, request flushes, pull state deltas, recover originals. " +
    "Authenticate with `Authorization: Bearer <tenant API key>`; admin routes take the admin key.",
};

export function registerOpenApi(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent("securitySchemes", "Bearer", { type: "http", scheme: "bearer", description: "Tenant API key (ck_…)" });
  app.openAPIRegistry.registerComponent("securitySchemes", "AdminKey", { type: "http", scheme: "bearer", description: "The admin key (CONDENSE_ADMIN_KEY)" });
  let doc: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  const build = () => (doc ??= app.getOpenAPI31Document({ openapi: "3.1.0", info: OPENAPI_INFO, tags: [{ name: "sessions" }, { name: "fleet" }, { name: "admin" }, { name: "system" }] }));
  app.get("/openapi.json", (c) => {
    c.set("routeName", "/openapi.json");
    return c.json(build());
  });
  app.get("/docs", (c) => {
    c.set("routeName", "/docs");
    return c.html(renderDocsPage(build() as Parameters<typeof renderDocsPage>[0]));
  });
}
