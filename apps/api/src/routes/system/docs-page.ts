/**
 * GET /docs: a small self-contained HTML page that renders the OpenAPI document (no CDN, no script
 * from elsewhere): one section per operation with its summary, parameters, body schema name and the
 * error codes it can answer.
 */

interface OpenApiOperation {
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: { name: string; in: string; required?: boolean; description?: string }[];
  requestBody?: { content?: Record<string, { schema?: { $ref?: string } }> };
  responses?: Record<string, { description?: string; content?: Record<string, { schema?: { $ref?: string } }> }>;
  security?: unknown[];
}

interface OpenApiDoc {
  info?: { title?: string; version?: string; description?: string };
  paths?: Record<string, Record<string, OpenApiOperation>>;
  components?: { schemas?: Record<string, unknown> };
}

const esc = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
const refName = (ref?: string) => (ref ? ref.split("/").pop() ?? ref : "");

export function renderDocsPage(doc: OpenApiDoc): string {
  const ops: string[] = [];
  for (const [path, methods] of Object.entries(doc.paths ?? {})) {
    for (const [method, op] of Object.entries(methods)) {
      const params = (op.parameters ?? []).map((p) => `<li><code>${esc(p.name)}</code> <em>${esc(p.in)}</em>${p.required ? " (required)" : ""}${p.description ? ` — ${esc(p.description)}` : ""}</li>`).join("");
      const body = refName(op.requestBody?.content?.["application/json"]?.schema?.$ref);
      const responses = Object.entries(op.responses ?? {})
        .map(([status, r]) => `<li><code>${esc(status)}</code> ${esc(r.description ?? "")}${refName(r.content?.["application/json"]?.schema?.$ref) ? ` <span class="schema">${esc(refName(r.content?.["application/json"]?.schema?.$ref))}</span>` : ""}</li>`)
        .join("");
      ops.push(`<section class="op">
<h3><span class="method ${esc(method)}">${esc(method.toUpperCase())}</span> <code>${esc(path)}</code>${op.security?.length ? ' <span class="lock" title="Bearer API key">key</span>' : ""}</h3>
${op.summary ? `<p>${esc(op.summary)}</p>` : ""}${op.description ? `<p class="desc">${esc(op.description)}</p>` : ""}
${params ? `<h4>Parameters</h4><ul>${params}</ul>` : ""}
${body ? `<h4>Body</h4><p><span class="schema">${esc(body)}</span></p>` : ""}
<h4>Responses</h4><ul>${responses}</ul>
</section>`);
    }
  }
  const schemas = Object.keys(doc.components?.schemas ?? {}).sort().map((n) => `<li><code>${esc(n)}</code></li>`).join("");
  const title = esc(doc.info?.title ?? "API");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title} — reference</title>
<style>
body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem 2rem;color:#222}
code{font:13px ui-monospace,monospace;background:#f3f3f3;padding:0 .25em;border-radius:3px}
.op{border:1px solid #ddd;border-radius:6px;padding:.25rem 1rem;margin:1rem 0}
.method{display:inline-block;min-width:4.5em;text-align:center;color:#fff;border-radius:4px;font-size:12px;padding:.1em .4em}
.get{background:#2b7a3d}.post{background:#1f5fa8}.put,.patch{background:#a86b1f}.delete{background:#a8321f}
.lock{font-size:11px;border:1px solid #999;border-radius:3px;padding:0 .3em;color:#555}
.schema{font-family:ui-monospace,monospace;color:#6a3d9a}.desc{color:#555}h4{margin:.5rem 0 0}
</style></head><body>
<h1>${title} <small>${esc(doc.info?.version ?? "")}</small></h1>
<p>${esc(doc.info?.description ?? "")}</p>
<p>Machine-readable document: <a href="/openapi.json">/openapi.json</a>. Every error answers <code>{"error":{"code","message","requestId"}}</code>.</p>
${ops.join("\n")}
<h2>Schemas</h2><ul>${schemas}</ul>
</body></html>`;
}
