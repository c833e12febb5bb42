/**
 * The API's configuration, parsed from the environment by one zod schema. Fleet mode (Redis-backed
 * queue, rate limits and event fan-out) is chosen by setting REDIS_URL; without it the API runs
 * embedded (in-process queue, in-memory limits).
 */
import { z } from "zod";

const MiB = 1024 * 1024;

const int = (def: number, min = 0) => z.coerce.number().int().min(min).default(def);
const bool = (def: boolean) =>
  z.enum(["1", "0", "true", "false", "yes", "no", ""]).default(def ? "true" : "false").transform((v) => v === "1" || v === "true" || v === "yes");

export const ApiEnvSchema = z
  .object({
    HOST: z.string().min(1).default("127.0.0.1"),
    PORT: int(8787, 0).pipe(z.number().max(65535)),
    DATABASE_URL: z.string().min(1).default("pglite:./.condense/pglite").refine((u) => /^(postgres(ql)?:\/\/|pglite:)/.test(u), "must be postgres://… or pglite:[dir]"),
    REDIS_URL: z.string().default("").refine((u) => u === "" || /^rediss?:\/\//.test(u), "must be redis://… or rediss://…"),
    CONDENSE_REDIS_PREFIX: z.string().regex(/^[A-Za-z0-9:_-]{1,64}$/).default("condense"),
    /** Admin key for tenant and key management; admin routes answer 401 while it is unset. */
    CONDENSE_ADMIN_KEY: z.string().default("").refine((k) => k === "" || k.length >= 16, "must be at least 16 characters"),
    CONDENSE_MAX_REQUEST_BYTES: int(8 * MiB, 1024),
    CONDENSE_MAX_RESULT_BYTES: int(2 * MiB, 1),
    /** Token bucket per tenant: refill rate (requests per second) and burst size. 0 disables. */
    CONDENSE_RATE_LIMIT_PER_SEC: int(100, 0),
    CONDENSE_RATE_LIMIT_BURST: int(400, 1),
    CONDENSE_SHUTDOWN_GRACE_MS: int(10_000, 0),
    CONDENSE_SSE_HEARTBEAT_MS: int(15_000, 100),
    CONDENSE_SSE_POLL_MS: int(1_000, 20),
    CONDENSE_FLEET_WINDOW_MINUTES: int(15, 1),
    /** Run database migrations at startup (embedded default; fleet deployments may migrate separately). */
    CONDENSE_MIGRATE: bool(true),
    LOG_LEVEL: z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"]).default("info"),
  })
  .transform((e) => ({ ...e, mode: (e.REDIS_URL ? "fleet" : "embedded") as "fleet" | "embedded" }));

export type ApiEnv = z.output<typeof ApiEnvSchema>;

export class ApiEnvError extends Error {
  constructor(readonly issues: { path: string; message: string }[]) {
    super(`invalid API environment: ${issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`);
    this.name = "ApiEnvError";
  }
}

/** Parse the env; empty strings count as unset so `FOO=` in a compose file falls back to the default. */
export function loadApiEnv(env: Record<string, string | undefined> = process.env): ApiEnv {
  const cleaned: Record<string, string> = {};
  for (const key of Object.keys(ApiEnvSchema.in.shape)) {
    const v = env[key];
    if (v !== undefined && v.trim() !== "") cleaned[key] = v.trim();
  }
  const parsed = ApiEnvSchema.safeParse(cleaned);
  if (!parsed.success) {
    throw new ApiEnvError(parsed.error.issues.map((i) => ({ path: i.path.join(".") || "(root)", message: i.message })));
  }
  return parsed.data;
}
