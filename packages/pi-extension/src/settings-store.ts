/**
 * Condense settings inside pi's own settings file, under the key `condense` (CAP-CFG-1). Loading
 * normalizes through core (invalid values fall back to defaults, unknown keys are kept). Saving
 * rewrites the whole file with every other key untouched, through a temp file and a rename, so a
 * crash mid-write never leaves pi with a truncated settings file.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { isObject, normalizeSettings, type CondenseSettings } from "@condense/core";
import { settingsPath } from "./agent-dir.ts";
import { PI_CONDENSE_SETTINGS_KEY, settingsFromContextPrune } from "./pi-condense-import.ts";

export const SETTINGS_KEY = "condense";

function readFileObject(path: string): Record<string, unknown> {
  if (!existsSync(path)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, "utf8"));
    return isObject(parsed) ? parsed : {};
  } catch {
    return {};
  }
}

/** The stored `condense` object as written (unknown keys included), or {} when absent/invalid. */
export function readStoredSettings(path = settingsPath()): Record<string, unknown> {
  const v = readFileObject(path)[SETTINGS_KEY];
  return isObject(v) ? v : {};
}

export function loadSettings(path = settingsPath()): CondenseSettings {
  const file = readFileObject(path);
  // Coming from pi-condense: without settings of its own, Condense starts from its `contextPrune` block.
  if (!(SETTINGS_KEY in file) && isObject(file[PI_CONDENSE_SETTINGS_KEY]))
    return settingsFromContextPrune(file[PI_CONDENSE_SETTINGS_KEY]);
  return normalizeSettings(readStoredSettings(path));
}

/** Atomic write of the whole file; other top-level keys are preserved; 2-space JSON + newline. */
export function saveSettings(settings: CondenseSettings, path = settingsPath()): void {
  const file = readFileObject(path);
  file[SETTINGS_KEY] = settings;
  mkdirSync(dirname(path), { recursive: true });
  const tmp = `${path}.condense-${process.pid}-${Date.now()}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(file, null, 2)}\n`);
  renameSync(tmp, path);
}
