/**
 * The API's configuration is @condense/config's API view (every variable is declared there); these
 * are the names the API's callers know it by. `loadApiEnv()` with no argument reads this process's env.
 */
import { apiConfig, processEnv, type ApiConfig, type Env } from "@condense/config";

export { ConfigError as ApiEnvError } from "@condense/config";
export type ApiEnv = ApiConfig;

export function loadApiEnv(env: Env = processEnv()): ApiEnv {
  return apiConfig(env);
}
