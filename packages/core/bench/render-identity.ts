/**
 * Render identity against another checkout: every real session (pi and the other formats in
 * ../shared/data/sessions), condensed with this checkout's fixture builder, is rendered by this
 * checkout's `pruneMessages` and by the other one's, under several settings and in the client's
 * pattern (one memo and policy per state, every assistant-turn prefix on a fresh clone, then a shorter
 * branch), and each result (messages, sizes, diagnostics, stats) is compared byte for byte. Run it
 * before and after changing the render: a render change that is meant to be a refactor prints 0 differ.
 *
 * Run: `npx tsx packages/core/bench/render-identity.ts <other checkout root>` (the other checkout
 * installed, so its core resolves its own dependencies); exits 1 when any render differs.
 */
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { SHARED_SESSIONS } from "@condense/test-support/sessions";
import * as after from "../src/index.ts";
import { buildCondensedState } from "../test/support/condensed-state.ts";

const other = process.argv[2];
if (!other) {
  console.error("usage: render-identity.ts <other checkout root>");
  process.exit(2);
}
/** The other checkout's core; one without a render memo (an older render) renders without one. */
type Core = typeof after;
const before = (await import(resolve(other, "packages/core/src/index.ts"))) as Pick<
  Core,
  "pruneMessages" | "normalizeSettings"
> &
  Partial<Pick<Core, "createRenderMemo" | "decideRenderPolicy">>;
const files = ["pi", "other"].flatMap((d) =>
  existsSync(join(SHARED_SESSIONS, d))
    ? readdirSync(join(SHARED_SESSIONS, d))
        .sort()
        .map((f) => join(SHARED_SESSIONS, d, f))
    : [],
);
const variants: [string, Parameters<Core["normalizeSettings"]>[0]][] = [
  ["default", {}],
  ["purge+grace", { purgeErrors: { enabled: true, cooldownTurns: 1, minArgChars: 50 }, recoveryGraceTurns: 2 }],
  ["no-chains", { chainCompression: { enabled: false } }],
  ["keep-thinking", { chainCompression: { enabled: true, stripFinalAssistantThinking: false } }],
];
const h = (x: unknown) => createHash("sha1").update(JSON.stringify(x)).digest("hex");
const sig = (r: ReturnType<Core["pruneMessages"]>) =>
  h({ m: r.messages, p: r.pruned, b: r.beforeChars, a: r.afterChars, d: r.diagnostics, s: r.stats });
let renders = 0;
let bad = 0;
for (const f of files) {
  const text = readFileSync(f, "utf8");
  const raw = f.includes("/pi/")
    ? after.readPiSession(text, { compaction: "ignore" }).messages
    : after.readAnySession(text, basename(f)).messages;
  for (const [vname, v] of variants) {
    const settings = after.normalizeSettings(v);
    const fx = buildCondensedState(raw, { keepLastUserTurns: 3, settings });
    const msgs = fx.messages;
    // 1. one-off renders (no memo), measured, of the whole history and of its rendered output
    const a1 = after.pruneMessages(structuredClone(msgs), fx.state, { settings });
    const b1 = before.pruneMessages(structuredClone(msgs), fx.state, { settings });
    const checks: [string, string, string][] = [["whole", sig(a1), sig(b1)]];
    const a2 = after.pruneMessages(structuredClone(a1.messages), fx.state, { settings });
    const b2 = before.pruneMessages(structuredClone(b1.messages), fx.state, { settings });
    checks.push(["rerender", sig(a2), sig(b2)]);
    // 2. the client's pattern: one memo and policy per state, every assistant-turn prefix on a fresh clone
    const memoA = after.createRenderMemo(fx.state);
    const memoB = before.createRenderMemo?.(fx.state);
    let policyA: ReturnType<Core["decideRenderPolicy"]> | undefined;
    let policyB: ReturnType<Core["decideRenderPolicy"]> | undefined;
    const ends: number[] = [];
    for (let i = 0; i < msgs.length; i++) {
      if (!after.isAssistant(msgs[i])) continue;
      let e = i + 1;
      while (e < msgs.length && after.isToolResult(msgs[e])) e++;
      ends.push(e);
    }
    // and a shorter branch after the full one (positions reused with other occurrences)
    ends.push(Math.floor(msgs.length / 2), msgs.length);
    for (const [k, e] of ends.entries()) {
      const ca = structuredClone(msgs.slice(0, e));
      const cb = structuredClone(msgs.slice(0, e));
      policyA ??= after.decideRenderPolicy(ca, settings);
      policyB ??= before.decideRenderPolicy?.(cb, settings);
      const measure = k % 7 === 0;
      const optsB = { settings, measure, ...(memoB ? { memo: memoB } : {}), ...(policyB ? { policy: policyB } : {}) };
      checks.push([
        `prefix ${e}`,
        sig(after.pruneMessages(ca, fx.state, { settings, measure, memo: memoA, policy: policyA })),
        sig(before.pruneMessages(cb, fx.state, optsB)),
      ]);
    }
    for (const [what, x, y] of checks) {
      renders++;
      if (x !== y) {
        bad++;
        console.log(`DIFF ${basename(f)} ${vname} ${what}`);
      }
    }
    console.log(
      `${basename(f)} ${vname}: ${checks.length} renders, ${a1.stats.stubbed} stubbed, ${a1.stats.chainsApplied} chains, ${a1.stats.purged} purged, ${a1.stats.swept} swept`,
    );
  }
}
console.log(`${renders} renders compared, ${bad} differ`);
process.exitCode = bad ? 1 : 0;
