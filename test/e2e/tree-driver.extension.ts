/**
 * A second extension the branch and compaction suites load next to Condense, so a headless pi run can do
 * what a user does in the TUI: move in the session tree (`/tree`), compact (`/compact`), and pause
 * between prompts while the service works. Each is a command, run as a prompt (`pi --mode json
 * "/e2e-tree user SCENARIO BB"`); pi awaits a command before the next prompt.
 *   /e2e-tree user <text>  navigate to the user message starting with <text> (the leaf becomes its parent,
 *                          as when a user picks that message in /tree to rewrite it)
 *   /e2e-tree leaf <text>  navigate to the newest leaf below that user message (back onto its branch)
 *   /e2e-compact           pi's own compaction, awaited
 *   /e2e-sleep <ms>        wait
 *   /e2e-settle <ms>       wait at least <ms>, then until the local service has no flush request queued
 *                          for any session (at most 90 s more): a fixed pause alone is a race on a loaded host
 */
import { homedir } from "node:os";
import { join } from "node:path";
import { waitLocalIdle } from "./local-service-idle.ts";
import type { ExtensionAPI, ExtensionCommandContext, SessionEntry } from "@mariozechner/pi-coding-agent";

function userText(e: SessionEntry): string {
  if (e.type !== "message" || e.message.role !== "user") return "";
  const c = e.message.content;
  if (typeof c === "string") return c;
  return c.map((p) => (p.type === "text" ? p.text : "")).join("");
}

function findUser(ctx: ExtensionCommandContext, prefix: string): SessionEntry {
  const hit = ctx.sessionManager.getEntries().find((e) => userText(e).startsWith(prefix));
  if (!hit) throw new Error(`e2e-tree: no user message starts with ${JSON.stringify(prefix)}`);
  return hit;
}

/** The newest leaf below `from`: follow the last-appended child until there is none. */
function newestLeafBelow(ctx: ExtensionCommandContext, from: SessionEntry): SessionEntry {
  const entries = ctx.sessionManager.getEntries();
  let at = from;
  for (;;) {
    const children = entries.filter((e) => e.parentId === at.id && e.type !== "label");
    if (children.length === 0) return at;
    at = children[children.length - 1]!;
  }
}

export default function treeDriver(pi: ExtensionAPI): void {
  pi.registerCommand("e2e-tree", {
    description: "test driver: navigate the session tree",
    handler: async (args, ctx) => {
      const [how, ...rest] = args.trim().split(/\s+/);
      const target = findUser(ctx, rest.join(" "));
      const to = how === "leaf" ? newestLeafBelow(ctx, target) : target;
      const r = await ctx.navigateTree(to.id, { summarize: false });
      if (r.cancelled) throw new Error("e2e-tree: navigation cancelled");
    },
  });
  pi.registerCommand("e2e-compact", {
    description: "test driver: compact now and wait",
    handler: async (_args, ctx) => {
      await ctx.waitForIdle();
      await new Promise<void>((resolve, reject) =>
        ctx.compact({ onComplete: () => resolve(), onError: (e) => reject(e) }),
      );
    },
  });
  pi.registerCommand("e2e-settle", {
    description: "test driver: wait, then until the local service has no flush queued",
    handler: async (args) => {
      await new Promise((r) => setTimeout(r, Number(args.trim()) || 1000));
      const dataDir =
        process.env.CONDENSE_DATA_DIR?.trim() ||
        join(process.env.PI_CODING_AGENT_DIR?.trim() || join(homedir(), ".pi", "agent"), "condense");
      await waitLocalIdle(dataDir);
    },
  });
  pi.registerCommand("e2e-sleep", {
    description: "test driver: wait",
    handler: async (args) => {
      await new Promise((r) => setTimeout(r, Number(args.trim()) || 1000));
    },
  });
}
