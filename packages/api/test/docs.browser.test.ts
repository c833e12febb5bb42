/**
 * /docs in a real browser (Debian's headless Chromium, driven by playwright-core): the page renders
 * every operation with Redoc served by this API, loads nothing from any other origin, and shows each
 * request body's fields (nested ones too) and its example without a click.
 */
import { condenseJobs, createInProcessQueue } from "@condense/queue";
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser, type Page } from "playwright-core";
import { loadApiEnv } from "../src/env.ts";
import { startServer, type RunningServer } from "../src/server.ts";

const CHROMIUM = "/usr/bin/chromium";
const haveChromium = existsSync(CHROMIUM);
// CI (.ci/run installs it) must not pass by skipping.
if (!haveChromium && process.env.REQUIRE_SERVICES === "1")
  throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium`);
if (!haveChromium)
  console.warn(`docs.browser: ${CHROMIUM} is missing (apt-get install -y chromium); the browser test is skipped`);

type Json = Record<string, any>;
const refName = (ref: string) => ref.split("/").pop()!;

/** Field paths of a schema as a reader sees them: name per level, nested objects and array items followed. */
function fieldNames(doc: Json, schema: Json | undefined, depth = 0, seen = new Set<string>()): string[] {
  if (!schema || depth > 4) return [];
  if (schema.$ref) {
    const name = refName(schema.$ref);
    if (seen.has(name)) return [];
    return fieldNames(doc, doc.components.schemas[name], depth, new Set([...seen, name]));
  }
  const own = Object.keys(schema.properties ?? {});
  const nested = Object.values<Json>(schema.properties ?? {}).flatMap((p) =>
    fieldNames(doc, p.items ?? p.allOf?.[0] ?? p, depth + 1, seen),
  );
  return [...own, ...nested];
}

describe.skipIf(!haveChromium)("/docs in headless Chromium", () => {
  let server: RunningServer;
  let browser: Browser;
  let page: Page;
  let doc: Json;
  const foreign: string[] = [];

  beforeAll(async () => {
    server = await startServer({
      jobQueue: createInProcessQueue({ catalog: condenseJobs }),
      env: loadApiEnv({
        PORT: "0",
        HOST: "127.0.0.1",
        DATABASE_URL: "pglite:",
        CONDENSE_ADMIN_KEY: "docs-admin-key-0123456789",
        LOG_LEVEL: "silent",
      }),
    });
    doc = await (await fetch(`${server.url}/openapi.json`)).json();
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
    });
    page = await browser.newPage({ viewport: { width: 1600, height: 1000 } });
    // A request the page's CSP blocks never leaves the browser (it fails with ERR_BLOCKED_BY_CSP);
    // anything else to another origin, answered or not, is a failure of "no CDN".
    const isLocal = (u: string) => u.startsWith(server.url) || u.startsWith("data:") || u.startsWith("blob:");
    page.on("response", (r) => {
      if (!isLocal(r.url())) foreign.push(`loaded: ${r.url()}`);
    });
    page.on("requestfailed", (r) => {
      if (!isLocal(r.url()) && !/^(csp|net::ERR_BLOCKED_BY_CSP)$/i.test(r.failure()?.errorText ?? ""))
        foreign.push(`attempted: ${r.url()} (${r.failure()?.errorText})`);
    });
    await page.goto(`${server.url}/docs`, { waitUntil: "networkidle" });
    await page.waitForSelector('[data-section-id*="/operation/"]', { timeout: 60_000 });
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it("renders every operation, and loads nothing from another origin (the CSP blocks only Redoc's branding logo)", async () => {
    const ops = Object.values<Json>(doc.paths).flatMap((m) =>
      Object.values<Json>(m).map((op) => op.operationId as string),
    );
    expect(ops.length).toBeGreaterThanOrEqual(15);
    for (const id of ops) {
      const section = page.locator(`[data-section-id$="/operation/${id}"]`).first();
      expect(await section.count(), `operation ${id} rendered`).toBe(1);
    }
    expect(foreign, foreign.join(", ")).toEqual([]);
  });

  it("shows every request body's fields and its example, expanded", async () => {
    const bodies = Object.values<Json>(doc.paths)
      .flatMap((m) => Object.values<Json>(m))
      .filter((op) => op.requestBody);
    expect(bodies.length).toBeGreaterThanOrEqual(6);
    for (const op of bodies) {
      const section = page.locator(`[data-section-id$="/operation/${op.operationId}"]`).first();
      const media = op.requestBody.content["application/json"];
      const schema = media.schema.$ref ? doc.components.schemas[refName(media.schema.$ref)] : media.schema;
      const fields = [...new Set(fieldNames(doc, media.schema))];
      expect(fields.length, `${op.operationId} has fields`).toBeGreaterThan(0);
      for (const field of fields) {
        const cell = section.locator(".property-name", { hasText: new RegExp(`^${field}$`) }).first();
        expect(await cell.isVisible(), `${op.operationId}: field ${field} visible`).toBe(true);
      }
      const example = media.example ?? schema.example;
      expect(example, `${op.operationId} has an example`).toBeDefined();
      const samples = section.locator("text=Request samples").first();
      expect(await samples.isVisible(), `${op.operationId}: request sample panel visible`).toBe(true);
      const sampleText = await section.locator('[role="tabpanel"]').first().textContent();
      for (const [k, v] of Object.entries<unknown>(example)) {
        expect(sampleText, `${op.operationId}: example key ${k}`).toContain(`"${k}"`);
        if (typeof v === "string") expect(sampleText, `${op.operationId}: example value of ${k}`).toContain(v);
      }
    }
  });

  it("shows each field's type and description", async () => {
    const section = page.locator(`[data-section-id$="/operation/postCaptures"]`).first();
    const text = await section.textContent();
    expect(text).toContain("captureId");
    expect(text).toMatch(/string/);
    expect(text).toContain("Client id of this POST");
    expect(text).toContain("toolCallId");
  });
});
