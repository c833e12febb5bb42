/** One environment variable's declaration: its kind, default, meaning, readers and former names. */
import type { ValueKind } from "./value-kinds.ts";

/** The processes that read a variable (the docs table's "read by" column). */
export type Reader = "api" | "worker" | "service" | "cli" | "client";

export interface Variable<T> {
  kind: ValueKind<T>;
  /** The value when the variable is unset or empty. */
  default: T;
  /** The default as the docs table shows it (a derived default is described, not computed). */
  defaultText: string;
  description: string;
  readers: readonly Reader[];
  /** Names that still work, each with a one-line deprecation warning. */
  deprecatedNames?: readonly string[];
  /** A standard name shared with other tools (DATABASE_URL, REDIS_URL...), kept without the prefix. */
  standard?: true;
}

type Declaration<T> = Omit<Variable<T>, "default" | "defaultText"> & { default: T; defaultText?: string };

export function variable<T>(d: Declaration<T>): Variable<T> {
  return { ...d, defaultText: d.defaultText ?? String(d.default) };
}

export function optional<T>(d: Omit<Declaration<T>, "default"> & { defaultText?: string }): Variable<T | undefined> {
  return { ...d, default: undefined, defaultText: d.defaultText ?? "—" };
}
