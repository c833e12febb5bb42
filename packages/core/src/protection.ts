/**
 * Protected tools and paths (CAP-PROT-1). A protected call is never indexed, stored, summarized or
 * stubbed. Globs are compiled once per settings object and cached, so the render path pays one
 * WeakMap lookup.
 */
import type { CondenseSettings } from "./settings.ts";

export interface ProtectionRules { tools: ReadonlySet<string>; paths: readonly RegExp[] }

/** Full-string anchored: `**\/` = zero or more directories, `**` = anything, `*` = no `/`, `?` = one non-`/`. */
export function globToRegExp(glob: string): RegExp {
  let re = "";
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === "*") {
      if (glob[i + 1] === "*") {
        if (glob[i + 2] === "/") { re += "(?:.*/)?"; i += 2; } else { re += ".*"; i += 1; }
      } else re += "[^/]*";
    } else if (c === "?") re += "[^/]";
    else re += c.replace(/[.+^${}()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${re}$`);
}

const cache = new WeakMap<object, ProtectionRules>();
export function protectionRules(settings: Pick<CondenseSettings, "protectedTools" | "protectedPaths">): ProtectionRules {
  let r = cache.get(settings);
  if (!r) {
    r = {
      tools: new Set(settings.protectedTools ?? []),
      paths: (settings.protectedPaths ?? []).filter((p) => typeof p === "string").map(globToRegExp),
    };
    cache.set(settings, r);
  }
  return r;
}

export function isProtectedCall(rules: ProtectionRules, toolName: string, args: unknown): boolean {
  if (rules.tools.has(toolName)) return true;
  if (rules.paths.length === 0 || typeof args !== "object" || args === null) return false;
  const p = (args as Record<string, unknown>).path;
  if (typeof p !== "string") return false;
  const norm = p.replace(/\\/g, "/");
  for (const re of rules.paths) if (re.test(norm)) return true;
  return false;
}
