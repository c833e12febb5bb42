/**
 * Protected tools and paths (CAP-PROT-1). A protected call is never indexed, stored, summarized or
 * stubbed. Both lists are globs matched by picomatch (braces `{env,pem}`, classes `[ab]`, `[!ab]`,
 * extglobs, `**`), compiled once per settings object and cached, so the render path pays one WeakMap
 * lookup. A pattern starting with `!` excludes what the list's other patterns would protect.
 */
// The posix entry: the default entry reads process.platform to pick separators; core reads no
// environment, and paths are normalized to `/` before matching anyway.
import picomatch from "picomatch/posix.js";
import type { CondenseSettings } from "./settings.ts";

/** `has` keeps the shape callers used when tools were an exact-name Set. */
export interface NameMatcher {
  has(name: string): boolean;
}
export interface ProtectionRules {
  tools: NameMatcher;
  paths: NameMatcher;
}

// dot: `**/*.env` must protect `.env` and anything under `.config/`; a safety list that skipped
// dotfiles would leave exactly the secrets files unprotected. posix: `[!ab]` negates a class (and
// `[[:digit:]]` works) as in a shell; without it picomatch reads `!` as a class member.
const GLOB_OPTIONS = { dot: true, posix: true, windows: false } as const;

function compileOne(glob: string): (s: string) => boolean {
  try {
    return picomatch(glob, GLOB_OPTIONS);
  } catch {
    // picomatch refuses only pathological input (e.g. longer than its 64 KiB limit); such a pattern
    // still protects the one string it spells.
    return (s) => s === glob;
  }
}

/**
 * One matcher for a list of globs: protected iff some pattern matches and no `!pattern` does. A
 * list of only exclusions protects nothing (an exclusion narrows the list, it never widens it).
 */
export function compileGlobList(globs: readonly unknown[]): NameMatcher {
  const include: Array<(s: string) => boolean> = [];
  const exclude: Array<(s: string) => boolean> = [];
  for (const g of globs) {
    if (typeof g !== "string" || g.length === 0) continue;
    if (g.startsWith("!") && g.length > 1 && !g.startsWith("!(")) exclude.push(compileOne(g.slice(1)));
    else include.push(compileOne(g));
  }
  if (include.length === 0) return { has: () => false };
  return {
    has(name: string): boolean {
      if (!include.some((m) => m(name))) return false;
      return !exclude.some((m) => m(name));
    },
  };
}

/** Whether one glob matches one path (with the same options as the protection lists). */
export function globMatches(glob: string, path: string): boolean {
  return compileGlobList([glob]).has(path.replace(/\\/g, "/"));
}

const cache = new WeakMap<object, ProtectionRules>();
export function protectionRules(
  settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">,
): ProtectionRules {
  let r = cache.get(settings);
  if (!r) {
    r = {
      tools: compileGlobList(settings.protectedTools ?? []),
      paths: compileGlobList(settings.protectedPaths ?? []),
    };
    cache.set(settings, r);
  }
  return r;
}

export function isProtectedCall(rules: ProtectionRules, toolName: string, args: unknown): boolean {
  if (rules.tools.has(toolName)) return true;
  if (typeof args !== "object" || args === null) return false;
  const p = (args as Record<string, unknown>).path;
  if (typeof p !== "string") return false;
  return rules.paths.has(p.replace(/\\/g, "/"));
}
