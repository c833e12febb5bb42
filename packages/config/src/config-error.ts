/** A configuration error: every bad variable at once, each with its value and what was expected. */

export interface ConfigIssue {
  /** The variable as it was set (a deprecated name when that is the one used). */
  variable: string;
  /** The raw value, or undefined for a rule across variables. */
  value: string | undefined;
  expected: string;
}

export class ConfigError extends Error {
  constructor(
    /** Which process's configuration ("API", "worker", ...). */
    readonly scope: string,
    readonly issues: readonly ConfigIssue[],
  ) {
    super(`invalid ${scope} environment: ${issues.map(describeIssue).join("; ")}`);
    this.name = "ConfigError";
  }
}

function describeIssue(i: ConfigIssue): string {
  return i.value === undefined
    ? `${i.variable}: ${i.expected}`
    : `${i.variable}=${JSON.stringify(i.value)}: expected ${i.expected}`;
}
