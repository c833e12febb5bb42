/**
 * `--settings <json>`: a JSON object of session settings, checked by core's validateSettingsPatch so a
 * mistyped key or a bad value stops the command with the key named, the closest valid key and the list,
 * instead of being dropped silently and the run looking as if it had used it.
 */
import { validateSettingsPatch } from "@condense/core";
import { CliError, EXIT } from "./cli-error.ts";

export function parseSettingsFlag(text: string): Record<string, unknown> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new CliError(
      "--settings must be a JSON object",
      EXIT.usage,
      `got: ${text}; e.g. --settings '{"minBatchChars":500}'`,
    );
  }
  const checked = validateSettingsPatch(parsed);
  if (!checked.ok)
    throw new CliError(
      `--settings: ${checked.message}`,
      EXIT.usage,
      "fix the key or value above; condense replay --help lists the flag",
    );
  return checked.patch;
}
