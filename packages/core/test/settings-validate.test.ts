import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS } from "../src/settings.ts";
import { closestName, SETTING_KEYS, validateSettingsPatch } from "../src/settings-validate.ts";

describe("validateSettingsPatch", () => {
  it("accepts a valid patch unchanged, nested objects field by field", () => {
    const patch = {
      minBatchChars: 500,
      pruneOn: "on-demand",
      summarizerFallbackModel: null,
      chainCompression: { rollingWindow: 2 },
    };
    expect(validateSettingsPatch(patch)).toEqual({ ok: true, patch });
  });

  it("names a mistyped key with the closest one and every valid key", () => {
    const r = validateSettingsPatch({ minBachChars: 500 });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.issues).toEqual([
      expect.objectContaining({ key: "minBachChars", kind: "unknown", suggestion: "minBatchChars" }),
    ]);
    expect(r.message).toContain(
      'unknown setting "minBachChars" (did you mean "minBatchChars"?); valid: enabled, showStatusLine,',
    );
    for (const k of ["recoveryGraceTurns", "protectedPaths", "chainCompression", "purgeErrors"])
      expect(r.message).toContain(k);
  });

  it("pi-condense's old key names point at Condense's, and a nested key typed at the top level points at its parent", () => {
    const r = validateSettingsPatch({
      showPruneStatusLine: true,
      rollingWindow: 2,
      chainCompression: { rollingWindw: 2 },
    });
    if (r.ok) throw new Error("expected issues");
    expect(r.issues.map((i) => [i.key, i.suggestion])).toEqual([
      ["showPruneStatusLine", "showStatusLine"],
      ["rollingWindow", "chainCompression.rollingWindow"],
      ["chainCompression.rollingWindw", "chainCompression.rollingWindow"],
    ]);
    expect(r.issues[2]!.message).toContain("valid: chainCompression.enabled, chainCompression.rollingWindow");
  });

  it("refuses values normalizeSettings would silently replace, saying what is valid", () => {
    const r = validateSettingsPatch({
      enabled: "yes",
      minBatchChars: -1,
      autoBudgetThreshold: 80,
      summarizerThinking: "max",
      summarizerModel: "haiku",
      protectedTools: "read",
    });
    if (r.ok) throw new Error("expected issues");
    expect(r.issues.map((i) => i.key)).toEqual([
      "enabled",
      "minBatchChars",
      "autoBudgetThreshold",
      "summarizerThinking",
      "summarizerModel",
      "protectedTools",
    ]);
    expect(r.message).toContain('enabled must be a boolean (true or false), got "yes"');
    expect(r.message).toContain("summarizerThinking must be one of default, off, minimal, low, medium, high, xhigh");
    expect(validateSettingsPatch([1]).ok).toBe(false);
  });

  it("knows every setting normalizeSettings has", () => {
    const flat = Object.entries(DEFAULT_SETTINGS).flatMap(([k, v]) =>
      v && typeof v === "object" && !Array.isArray(v) ? Object.keys(v).map((c) => `${k}.${c}`) : [k],
    );
    expect([...SETTING_KEYS].sort()).toEqual(flat.sort());
    expect(validateSettingsPatch(JSON.parse(JSON.stringify(DEFAULT_SETTINGS))).ok).toBe(true);
  });

  it("closestName: typos and fragments, nothing for unrelated words", () => {
    expect(closestName("batching", ["batchingMode", "enabled"])).toBe("batchingMode");
    expect(closestName("xyzzy", ["batchingMode", "enabled"])).toBeUndefined();
  });
});
