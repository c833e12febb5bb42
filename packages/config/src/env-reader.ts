/**
 * The one parser: reads declared variables from an env object (never from process.env itself),
 * treats empty and blank values as unset (so `FOO=` in a compose file means the default), falls back
 * to a variable's deprecated names with a one-line warning, and collects every bad value so a
 * ConfigError names them all at once.
 */
import { ConfigError, type ConfigIssue } from "./config-error.ts";
import { VARIABLES, type VariableName } from "./variables.ts";

export type Env = Readonly<Record<string, string | undefined>>;

export interface ReadOptions {
  /** Where deprecation warnings go (default: one line on stderr, once per name per process). */
  warn?: (line: string) => void;
}

type ValueOf<N extends VariableName> = (typeof VARIABLES)[N]["default"];

export interface EnvReader {
  get<N extends VariableName>(name: N): ValueOf<N>;
  /** True when the variable (or one of its deprecated names) has a non-blank value. */
  isSet(name: VariableName): boolean;
  /** Record a rule across variables that does not hold. */
  fail(variable: string, expected: string): void;
  /** Throws a ConfigError naming every issue found so far. */
  done(): void;
}

const warnedNames = new Set<string>();

function warnOnce(line: string): void {
  if (warnedNames.has(line)) return;
  warnedNames.add(line);
  process.stderr.write(`${line}\n`);
}

export function deprecationWarning(oldName: string, name: string): string {
  return `condense: ${oldName} is deprecated, use ${name} (the old name still works for now)`;
}

export function envReader(env: Env, scope: string, options: ReadOptions = {}): EnvReader {
  const issues: ConfigIssue[] = [];
  const warn = options.warn ?? warnOnce;
  const raw = (name: VariableName): { from: string; value: string } | undefined => {
    const v = env[name]?.trim();
    if (v) return { from: name, value: v };
    for (const old of VARIABLES[name].deprecatedNames ?? []) {
      const o = env[old]?.trim();
      if (o) {
        warn(deprecationWarning(old, name));
        return { from: old, value: o };
      }
    }
    return undefined;
  };
  return {
    get(name) {
      const decl = VARIABLES[name];
      const found = raw(name);
      if (!found) return decl.default as never;
      const parsed = decl.kind.parse(found.value);
      if (parsed.ok) return parsed.value as never;
      issues.push({ variable: found.from, value: found.value, expected: decl.kind.expected });
      return decl.default as never;
    },
    isSet: (name) => {
      if (env[name]?.trim()) return true;
      return (VARIABLES[name].deprecatedNames ?? []).some((old) => Boolean(env[old]?.trim()));
    },
    fail: (variable, expected) => {
      issues.push({ variable, value: undefined, expected });
    },
    done: () => {
      if (issues.length > 0) throw new ConfigError(scope, issues);
    },
  };
}
