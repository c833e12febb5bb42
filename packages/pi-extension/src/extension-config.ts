/**
 * The extension's configuration: @condense/config's client view of this process's env, read on each
 * use. Nothing the extension reads may break the agent's turn, so a bad value is reported (one line
 * naming the variable, its value and what is expected) and that variable's default used instead.
 */
import { clientConfig, ConfigError, processEnv, type ClientConfig, type Env } from "@condense/config";

const reported = new Set<string>();

export function extensionConfig(env: Env = processEnv()): ClientConfig {
  try {
    return clientConfig(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    if (!reported.has(err.message)) {
      reported.add(err.message);
      process.stderr.write(`condense: ${err.message}; using the defaults of those variables\n`);
    }
    const bad = new Set(err.issues.map((i) => i.variable));
    return clientConfig(Object.fromEntries(Object.entries(env).filter(([k]) => !bad.has(k))));
  }
}
