import { describe, expect, it } from "vitest";
import {
  captureTurn,
  createState,
  globMatches,
  isProtectedCall,
  normalizeSettings,
  protectionRules,
} from "../src/index.ts";
import { A, R } from "@condense/test-support/messages";

const protects = (paths: string[], path: string, tools: string[] = []) =>
  isProtectedCall(protectionRules({ protectedPaths: paths, protectedTools: tools }), "read", { path });

describe("protected paths (picomatch)", () => {
  it("braces: **/*.{env,pem} protects key.pem, .env and nested files, not key.txt", () => {
    const g = ["**/*.{env,pem}"];
    expect(protects(g, "key.pem")).toBe(true);
    expect(protects(g, "secrets/tls/key.pem")).toBe(true);
    expect(protects(g, "app/prod.env")).toBe(true);
    expect(protects(g, "app/.env")).toBe(true); // `*` may be empty, as in bash with dotglob
    expect(protects(g, ".env")).toBe(true);
    expect(protects(g, "app/.prod.env")).toBe(true);
    expect(protects(g, "key.txt")).toBe(false);
    expect(protects(g, "key.pem.bak")).toBe(false);
  });

  it("dotfiles and dot directories are matched (a safety list must not skip .env or .ssh/)", () => {
    expect(protects(["**/.env"], ".env")).toBe(true);
    expect(protects(["**/*"], ".ssh/id_rsa")).toBe(true);
    expect(protects(["**/*.env"], "config/.local.env")).toBe(true);
    expect(protects(["**/id_*"], "/home/me/.ssh/id_ed25519")).toBe(true);
  });

  it("classes: [ab] and ranges match one character of the class, [!ab] its complement", () => {
    expect(protects(["notes/[ab].md"], "notes/a.md")).toBe(true);
    expect(protects(["notes/[ab].md"], "notes/b.md")).toBe(true);
    expect(protects(["notes/[ab].md"], "notes/c.md")).toBe(false);
    expect(protects(["log[0-9].txt"], "log7.txt")).toBe(true);
    expect(protects(["log[0-9].txt"], "logx.txt")).toBe(false);
    expect(protects(["notes/[!ab].md"], "notes/c.md")).toBe(true);
    expect(protects(["notes/[!ab].md"], "notes/a.md")).toBe(false);
  });

  it("negation: a !pattern excludes from the rest of the list; exclusions alone protect nothing", () => {
    const g = ["secrets/**", "!secrets/public/**"];
    expect(protects(g, "secrets/db.txt")).toBe(true);
    expect(protects(g, "secrets/public/readme.md")).toBe(false);
    expect(protects(["!**/*.md"], "secrets/x.txt")).toBe(false);
    expect(protects(["!**/*.md"], "a.md")).toBe(false);
    // extglob negation inside one pattern is a pattern, not a list exclusion
    expect(protects(["conf/!(*.md)"], "conf/app.yaml")).toBe(true);
    expect(protects(["conf/!(*.md)"], "conf/readme.md")).toBe(false);
  });

  it("keeps the spec's glob semantics: anchored, case-sensitive, ** across dirs, * within one, ? one char", () => {
    const d = ["**/skills/**/*.md"];
    expect(protects(d, "skills/x.md")).toBe(true);
    expect(protects(d, "/home/u/.pi/skills/git/SKILL.md")).toBe(true);
    expect(protects(d, "skills/x.mdx")).toBe(false);
    expect(protects(d, "skills/X.MD")).toBe(false);
    expect(protects(["src/*.ts"], "src/a.ts")).toBe(true);
    expect(protects(["src/*.ts"], "src/deep/a.ts")).toBe(false);
    expect(protects(["a?c"], "abc")).toBe(true);
    expect(protects(["a?c"], "a/c")).toBe(false);
    expect(protects(["src/*.ts"], "x/src/a.ts")).toBe(false);
  });

  it("windows separators are normalized before matching", () => {
    expect(protects(["**/*.{env,pem}"], "C:\\keys\\server.pem")).toBe(true);
    expect(globMatches("**/*.pem", "a\\b\\c.pem")).toBe(true);
  });

  it("junk entries are ignored and nothing throws", () => {
    const rules = protectionRules({
      protectedPaths: [42 as unknown as string, "", "[", "{a,b", "**/*.pem"],
      protectedTools: [],
    });
    expect(isProtectedCall(rules, "read", { path: "k.pem" })).toBe(true);
    expect(isProtectedCall(rules, "read", { path: "[" })).toBe(true);
    expect(isProtectedCall(rules, "read", { path: 7 })).toBe(false);
    expect(isProtectedCall(rules, "read", null)).toBe(false);
  });
});

describe("protected tools (picomatch)", () => {
  it("an exact name matches itself only; globs and braces match families; ! excludes", () => {
    const rules = protectionRules({
      protectedTools: ["todowrite", "mcp__vault__*", "{secret,token}_read", "!mcp__vault__list"],
      protectedPaths: [],
    });
    expect(isProtectedCall(rules, "todowrite", {})).toBe(true);
    expect(isProtectedCall(rules, "todowrite2", {})).toBe(false);
    expect(isProtectedCall(rules, "mcp__vault__get", {})).toBe(true);
    expect(isProtectedCall(rules, "mcp__vault__list", {})).toBe(false);
    expect(isProtectedCall(rules, "token_read", {})).toBe(true);
    expect(rules.tools.has("secret_read")).toBe(true);
    expect(rules.tools.has("bash")).toBe(false);
  });

  it("live capture drops a call whose path a brace glob protects", () => {
    const settings = normalizeSettings({ protectedPaths: ["**/*.{env,pem}"] });
    const message = A(10, { id: "read_1", args: { path: "key.pem" } }, { id: "read_2", args: { path: "key.txt" } });
    const batch = captureTurn(
      { message, toolResults: [R(11, "read_1"), R(12, "read_2")], turnIndex: 1, now: 1000 } as never,
      createState(),
      settings,
    );
    expect(batch?.toolCalls.map((c) => c.toolCallId)).toEqual(["read_2"]);
  });
});
