/**
 * What a render leaves for the old generation: in a loop of [fresh structuredClone + render] with no
 * forced GC inside, how much old space grows per iteration, against the same loop without the
 * render. A render whose objects die young adds nothing here; anything the render keeps reachable
 * across young-generation collections (a memo entry holding a clone's message, say) is promoted and
 * paid again by the next full GC, which is what bench:core's `amortized` mode sees and its `cold`
 * modes do not. Per checkout and case: KiB promoted per iteration, clone + render and clone only.
 *
 * Run: `node --expose-gc --import tsx packages/core/bench/render-promotion.ts <checkout> [<checkout> ...]
 * [--cases gjc_03,kimchi]` (a young generation larger than what one loop allocates would hide it:
 * run with Node's default heap flags).
 */
import { readFileSync } from "node:fs";
import { basename, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import v8 from "node:v8";

const args = process.argv.slice(2);
const at = args.indexOf("--cases");
const only = at >= 0 ? (args[at + 1] ?? "").split(",").filter((w) => w.length > 0) : [];
const roots = args
  .filter((a, k) => !a.startsWith("--") && !(k > 0 && args[k - 1] === "--cases"))
  .map((r) => resolve(r));
if (roots.length === 0) throw new Error("usage: render-promotion.ts <checkout> [...] [--cases w,w]");
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run node with --expose-gc");
const ITERATIONS = 300;
const oldSpace = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "old_space")?.space_used_size ?? 0;

console.log("| checkout | case | clone + render KiB | clone only KiB |\n|---|---|---:|---:|");
for (const root of roots) {
  const load = (p: string) => import(pathToFileURL(resolve(root, p)).href);
  const render = await load("packages/core/src/render/prune-messages.ts");
  const { readPiSession } = await load("packages/core/src/session-reader.ts");
  const { normalizeSettings } = await load("packages/core/src/settings.ts");
  const { buildCondensedState } = await load("packages/core/test/support/condensed-state.ts");
  let sessions: ((kind: string) => string[]) | undefined;
  for (const p of ["packages/test-support/src/sessions.ts", "test/support/sessions.ts"]) {
    try {
      sessions = (await load(p)).realSessionFiles;
      break;
    } catch {}
  }
  if (!sessions) throw new Error(`no session finder in ${root}`);
  const settings = normalizeSettings({});
  for (const file of sessions("pi")) {
    const name = basename(file, ".jsonl");
    if (only.length > 0 && !only.some((w) => name.includes(w))) continue;
    const { messages } = readPiSession(readFileSync(file, "utf8"), { compaction: "ignore" });
    const fx = buildCondensedState(messages, { keepLastUserTurns: 3, settings });
    const base = fx.messages as unknown[];
    const opts: Record<string, unknown> = { settings };
    if (typeof render.createRenderMemo === "function") opts.memo = render.createRenderMemo(fx.state);
    if (typeof render.decideRenderPolicy === "function") opts.policy = render.decideRenderPolicy(base, settings);
    for (let i = 0; i < ITERATIONS; i++) render.pruneMessages(structuredClone(base), fx.state, opts);
    const grown = (withRender: boolean) => {
      gc();
      gc();
      const before = oldSpace();
      for (let i = 0; i < ITERATIONS; i++) {
        const clone = structuredClone(base);
        if (withRender) render.pruneMessages(clone, fx.state, opts);
      }
      return (oldSpace() - before) / ITERATIONS / 1024;
    };
    // A full GC that lands inside a loop can only lower its figure: the larger of two is kept.
    const rendered = Math.max(grown(true), grown(true));
    const cloned = Math.max(grown(false), grown(false));
    console.log(`| ${basename(root)} | ${name} | ${rendered.toFixed(1)} | ${cloned.toFixed(1)} |`);
  }
}
