/** `--settings` refuses a mistyped key or value with the valid keys (issue 19, item 5). */
import { describe, expect, it } from "vitest";
import { CliError } from "../src/cli-error.ts";
import { parseSettingsFlag } from "../src/settings-flag.ts";

describe("--settings", () => {
  it("passes a valid object through", () => {
    expect(parseSettingsFlag('{"minBatchChars":500,"chainCompression":{"rollingWindow":2}}')).toEqual({
      minBatchChars: 500,
      chainCompression: { rollingWindow: 2 },
    });
  });
  it("a mistyped key is a usage error naming the closest key and the valid ones", () => {
    let err: unknown;
    try {
      parseSettingsFlag('{"autoBudgetTreshold":0.3}');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(2);
    expect((err as CliError).message).toMatch(
      /^--settings: unknown setting "autoBudgetTreshold" \(did you mean "autoBudgetThreshold"\?\); valid: enabled, /,
    );
  });
  it("a bad value and a non-object are usage errors too", () => {
    expect(() => parseSettingsFlag('{"autoBudgetThreshold":30}')).toThrow(
      /autoBudgetThreshold must be a fraction in \(0, 1\] or null/,
    );
    expect(() => parseSettingsFlag("[1]")).toThrow(/settings must be a JSON object/);
    expect(() => parseSettingsFlag("{not json")).toThrow(/--settings must be a JSON object/);
  });
});
