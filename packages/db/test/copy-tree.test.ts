/**
 * copyTree, the template seed's copy: every file's bytes and mode, nested and empty directories with
 * their modes, symbolic links as links, skipped names left out at any depth, and a target that
 * exists refused.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { copyTree } from "../src/copy-tree.ts";

const list = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .map((e) => `${relative(dir, join(e.parentPath, e.name))}${e.isDirectory() ? "/" : e.isSymbolicLink() ? "@" : ""}`)
    .sort();

describe("copyTree", () => {
  const root = mkdtempSync(join(tmpdir(), "condense-copy-tree-test-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it("copies files, directories, modes and links, leaving out skipped names at any depth", () => {
    const src = join(root, "src");
    mkdirSync(join(src, "base/5"), { recursive: true });
    mkdirSync(join(src, "pg_tblspc"));
    writeFileSync(join(src, "PG_VERSION"), "17\n");
    writeFileSync(join(src, "base/5/1259"), Buffer.alloc(70_000, 7));
    writeFileSync(join(src, "base/5/empty"), "");
    writeFileSync(join(src, "skip-me"), "no");
    writeFileSync(join(src, "base/skip-me"), "no");
    writeFileSync(join(src, "private"), "secret");
    chmodSync(join(src, "private"), 0o600);
    chmodSync(join(src, "base"), 0o700);
    symlinkSync("base/5", join(src, "link"));

    const dst = join(root, "dst");
    copyTree(src, dst, (name) => name === "skip-me");

    expect(list(dst)).toEqual(
      ["PG_VERSION", "base/", "base/5/", "base/5/1259", "base/5/empty", "link@", "pg_tblspc/", "private"].sort(),
    );
    expect(readFileSync(join(dst, "base/5/1259")).equals(readFileSync(join(src, "base/5/1259")))).toBe(true);
    expect(readFileSync(join(dst, "base/5/empty")).length).toBe(0);
    expect(statSync(join(dst, "private")).mode & 0o777).toBe(0o600);
    expect(statSync(join(dst, "base")).mode & 0o777).toBe(0o700);
    expect(lstatSync(join(dst, "link")).isSymbolicLink()).toBe(true);
    expect(readlinkSync(join(dst, "link"))).toBe("base/5");
    // A copy, not shared files: writing the copy leaves the source as it was.
    writeFileSync(join(dst, "PG_VERSION"), "changed");
    expect(readFileSync(join(src, "PG_VERSION"), "utf8")).toBe("17\n");
  });

  it("refuses a target that exists", () => {
    const src = join(root, "src2");
    mkdirSync(src);
    writeFileSync(join(src, "a"), "a");
    const dst = join(root, "dst2");
    mkdirSync(dst);
    expect(() => copyTree(src, dst)).toThrow(/EEXIST/);
  });
});
