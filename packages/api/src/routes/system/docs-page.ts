/**
 * GET /docs: the OpenAPI document rendered by Redoc (a maintained renderer: fields, types,
 * descriptions, request and response samples for every operation), with Redoc's standalone bundle
 * served by this API from node_modules at /docs/redoc.standalone.js. No CDN: the page loads nothing
 * from elsewhere, so it works offline and behind a strict egress policy.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";

export const REDOC_BUNDLE_PATH = "/docs/redoc.standalone.js";

/**
 * The page may load only from this origin. Redoc's sidebar footer would fetch its logo from
 * cdn.redoc.ly; this policy blocks that (and anything else from elsewhere) in the browser. Inline
 * script: the one Redoc.init call; inline styles and blob workers: Redoc's styling and its web worker.
 */
export const DOCS_CSP = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "frame-ancestors 'none'",
].join("; ");

let bundle: string | undefined;
/** The bundle's text, read once (2 MB; the first /docs visit pays the read). */
export function redocBundle(): string {
  bundle ??= readFileSync(createRequire(import.meta.url).resolve("redoc/bundles/redoc.standalone.js"), "utf8");
  return bundle;
}

// Everything expanded: a reader must see each request body's fields and its example without clicking.
const REDOC_OPTIONS = {
  expandResponses: "all",
  jsonSampleExpandLevel: "all",
  schemaExpansionLevel: "all",
  expandSingleSchemaField: true,
  requiredPropsFirst: true,
  sortPropsAlphabetically: false,
  pathInMiddlePanel: true,
  hideHostname: false,
  nativeScrollbars: true,
  theme: {
    typography: {
      fontFamily: "system-ui, sans-serif",
      headings: { fontFamily: "system-ui, sans-serif" },
      code: { fontFamily: "ui-monospace, monospace" },
    },
  },
};

export function renderDocsPage(title: string): string {
  const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(title)} — reference</title>
<style>body{margin:0}</style>
</head><body>
<noscript>This page renders <a href="/openapi.json">/openapi.json</a> with JavaScript.</noscript>
<div id="redoc"></div>
<script src="${REDOC_BUNDLE_PATH}"></script>
<script>Redoc.init("/openapi.json", ${JSON.stringify(REDOC_OPTIONS)}, document.getElementById("redoc"));</script>
</body></html>`;
}
