/**
 * Every environment variable Condense reads, declared once. The per-process views (api-config.ts,
 * worker-config.ts, service-config.ts, client-config.ts, cli-config.ts) read only these, and the env
 * table in docs/operations.md is generated from this list (`pnpm docs:env`).
 *
 * One prefix, CONDENSE_. Names kept as the wider world spells them: DATABASE_URL, REDIS_URL (every
 * Postgres/Redis tool's name), CONDENSE_URL and CONDENSE_API_KEY (already prefixed), PI_CODING_AGENT_DIR
 * (pi's own), and the provider API keys (ANTHROPIC_API_KEY, OPENAI_API_KEY, ...) that pi-ai reads itself.
 */
import { boolean, integer, json, list, oneOf, text } from "./value-kinds.ts";
import { optional, variable } from "./variable.ts";

const MiB = 1024 * 1024;
const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
const databaseUrl = text({ pattern: /^(postgres(ql)?:\/\/|pglite:)/, expected: "postgres://… or pglite:[dir]" });
const redisUrl = text({ pattern: /^rediss?:\/\//, expected: "redis://… or rediss://…" });

export const VARIABLES = {
  CONDENSE_DATA_DIR: optional({
    kind: text(),
    defaultText: "`<PI_CODING_AGENT_DIR or ~/.pi/agent>/condense`",
    description:
      "the data directory's root, the same for every process: `pglite/` (the embedded database), `service.sock`, `api-key`, `admin-key`, `owner.lock`, `service.log`, `spool/`",
    readers: ["api", "worker", "service", "cli", "client"],
  }),
  HOME: optional({
    kind: text(),
    defaultText: "the OS's home directory",
    description: "the user's home; `~` in the paths above and the default pi agent directory resolve against it",
    readers: ["api", "worker", "service", "cli", "client"],
    standard: true,
  }),
  PI_CODING_AGENT_DIR: optional({
    kind: text(),
    defaultText: "`~/.pi/agent`",
    description: "pi's configuration directory (pi's own variable); the default data directory lives in it",
    readers: ["api", "worker", "service", "cli", "client"],
    standard: true,
  }),
  DATABASE_URL: optional({
    kind: databaseUrl,
    defaultText: "`pglite:<data dir>/pglite`",
    description: "`postgres://…` (fleet, or one process on Postgres) or `pglite:<dir>`",
    readers: ["api", "worker", "cli"],
    standard: true,
  }),
  REDIS_URL: optional({
    kind: redisUrl,
    description: "set = fleet (BullMQ queue, Redis rate limits and SSE fan-out); needs a postgres:// DATABASE_URL",
    readers: ["api", "worker", "cli"],
    standard: true,
  }),
  CONDENSE_REDIS_PREFIX: variable({
    kind: text({ pattern: /^[A-Za-z0-9:_-]{1,64}$/, expected: "1 to 64 of A-Z a-z 0-9 : _ -" }),
    default: "condense",
    description: "Redis key prefix; the API's and the workers' must match",
    readers: ["api", "worker"],
  }),
  CONDENSE_HOST: variable({
    kind: text(),
    default: "127.0.0.1",
    description: "the API's listen address (`0.0.0.0` in containers)",
    readers: ["api", "cli"],
    deprecatedNames: ["HOST"],
  }),
  CONDENSE_PORT: variable({
    kind: integer(0, 65535),
    default: 8787,
    description: "the API's listen port (0 picks a free one)",
    readers: ["api", "cli"],
    deprecatedNames: ["PORT"],
  }),
  CONDENSE_LOG_LEVEL: variable<(typeof LOG_LEVELS)[number]>({
    kind: oneOf(LOG_LEVELS),
    default: "info",
    description: "pino level; logs are JSON (the local service's go to `<data dir>/service.log`, rotated at 10 MB)",
    readers: ["api", "worker", "service", "cli"],
    deprecatedNames: ["LOG_LEVEL"],
  }),
  CONDENSE_ADMIN_KEY: variable({
    kind: text({ minLength: 16 }),
    default: "",
    defaultText: "empty",
    description:
      "admin key; admin routes answer 401 while it is unset (the data directory's `admin-key` in embedded mode)",
    readers: ["api", "cli"],
  }),
  CONDENSE_MIGRATE: variable({
    kind: boolean,
    default: true,
    description: "migrate the database at startup; the compose stack sets `false` and runs the `migrate` job",
    readers: ["api", "worker"],
  }),
  CONDENSE_MAX_REQUEST_BYTES: variable({
    kind: integer(1024),
    default: 8 * MiB,
    defaultText: "8 MiB",
    description: "the API's request body limit",
    readers: ["api"],
  }),
  CONDENSE_MAX_RESULT_BYTES: variable({
    kind: integer(1),
    default: 2 * MiB,
    defaultText: "2 MiB",
    description: "one tool result's size limit",
    readers: ["api"],
  }),
  CONDENSE_RATE_LIMIT_PER_SEC: variable({
    kind: integer(0),
    default: 100,
    description: "token bucket per tenant: refill rate in requests per second; 0 disables",
    readers: ["api"],
  }),
  CONDENSE_RATE_LIMIT_BURST: variable({
    kind: integer(1),
    default: 400,
    description: "token bucket per tenant: burst size",
    readers: ["api"],
  }),
  CONDENSE_SHUTDOWN_GRACE_MS: variable({
    kind: integer(0),
    default: 10_000,
    description: "the API's drain time on SIGTERM before connections are closed",
    readers: ["api"],
  }),
  CONDENSE_SSE_HEARTBEAT_MS: variable({
    kind: integer(100),
    default: 15_000,
    description: "SSE keep-alive interval",
    readers: ["api"],
  }),
  CONDENSE_SSE_POLL_MS: variable({
    kind: integer(20),
    default: 1_000,
    description: "how often open SSE streams poll for new versions (the single-process service uses 100)",
    readers: ["api"],
  }),
  CONDENSE_FLEET_WINDOW_MINUTES: variable({
    kind: integer(1),
    default: 15,
    description: "default window of `/v1/fleet/status`",
    readers: ["api"],
  }),
  CONDENSE_WORKER_CONCURRENCY: variable({
    kind: integer(1),
    default: 8,
    description: "jobs in flight per worker, one per session at a time (the single-process service defaults to 2)",
    readers: ["worker", "service"],
    deprecatedNames: ["WORKER_CONCURRENCY"],
  }),
  CONDENSE_WORKER_ID: optional({
    kind: text({ pattern: /^.{1,200}$/, expected: "1 to 200 characters" }),
    defaultText: "`<hostname>:<pid>`",
    description: "the worker's name in logs, metrics and job locks",
    readers: ["worker"],
    deprecatedNames: ["WORKER_ID"],
  }),
  CONDENSE_WORKER_BATCH_CONCURRENCY: variable({
    kind: integer(1),
    default: 4,
    description: "summarizer calls in flight per flush",
    readers: ["worker"],
    deprecatedNames: ["WORKER_BATCH_CONCURRENCY"],
  }),
  CONDENSE_WORKER_SHUTDOWN_GRACE_MS: variable({
    kind: integer(0),
    default: 10_000,
    description: "SIGTERM: let active flushes finish this long, then release them (single-process service: 5000)",
    readers: ["worker", "service"],
    deprecatedNames: ["WORKER_SHUTDOWN_GRACE_MS"],
  }),
  CONDENSE_WORKER_LOCK_MS: variable({
    kind: integer(500),
    default: 30_000,
    description: "BullMQ job lock; a job whose lock is not renewed this long is re-delivered to another worker",
    readers: ["worker"],
    deprecatedNames: ["WORKER_LOCK_MS"],
  }),
  CONDENSE_WORKER_STALLED_INTERVAL_MS: variable({
    kind: integer(200),
    default: 30_000,
    description: "how often BullMQ checks for stalled jobs",
    readers: ["worker"],
    deprecatedNames: ["WORKER_STALLED_INTERVAL_MS"],
  }),
  CONDENSE_REQUEUE_AFTER_MS: variable({
    kind: integer(0),
    default: 120_000,
    description: "re-enqueue a session whose newest queued flush request is older than this; 0 never",
    readers: ["worker"],
  }),
  CONDENSE_REQUEUE_INTERVAL_MS: variable({
    kind: integer(100),
    default: 30_000,
    description: "how often the worker looks for such flush requests",
    readers: ["worker"],
  }),
  CONDENSE_SUMMARIZER_MODEL: optional({
    kind: text(),
    defaultText: "deterministic",
    description: "`provider/model-id` from pi-ai's catalogue, or `deterministic`/`default` for no model",
    readers: ["worker", "service", "cli"],
  }),
  CONDENSE_SUMMARIZER_FALLBACK_MODEL: optional({
    kind: text(),
    defaultText: "deterministic",
    description: "used fleet-wide while the primary fails",
    readers: ["worker", "service", "cli"],
  }),
  CONDENSE_SUMMARIZER_MODELS: optional({
    kind: list,
    description:
      "comma-separated `provider/model-id` list a session's `summarizerModel` may pick (catalogue or `customModels`); the worker's model and fallback are always allowed",
    readers: ["worker", "service"],
  }),
  CONDENSE_SUMMARIZER_CONFIG: optional({
    kind: json,
    description:
      "JSON of the summarizer config: timeouts, retries, breaker cooldown, custom (OpenAI-compatible) models; the model variables above win",
    readers: ["worker", "service", "cli"],
  }),
  CONDENSE_RETENTION_INTERVAL_MINUTES: variable({
    kind: integer(0),
    default: 60,
    description:
      "how often the worker runs the retention job; 0 = never on a schedule (`condense retention run` still works)",
    readers: ["worker", "cli"],
  }),
  CONDENSE_RETENTION_CAPTURES_DAYS: variable({
    kind: integer(0),
    default: 30,
    description: "days to keep captures; 0 keeps them forever",
    readers: ["worker", "cli"],
  }),
  CONDENSE_RETENTION_STORED_BODIES_DAYS: variable({
    kind: integer(0),
    default: 30,
    description: "days to keep stored bodies; 0 keeps them forever",
    readers: ["worker", "cli"],
  }),
  CONDENSE_RETENTION_FLUSH_METRICS_DAYS: variable({
    kind: integer(0),
    default: 90,
    description: "days to keep flush metrics; 0 keeps them forever",
    readers: ["worker", "cli"],
  }),
  CONDENSE_RETENTION_RECOVERIES_DAYS: variable({
    kind: integer(0),
    default: 90,
    description: "days to keep recoveries; 0 keeps them forever",
    readers: ["worker", "cli"],
  }),
  CONDENSE_WORKER_METRICS_PORT: optional({
    kind: integer(0, 65535),
    description: "`condense worker`'s Prometheus endpoint port (same as `--metrics-port`)",
    readers: ["cli"],
  }),
  CONDENSE_WORKER_METRICS_HOST: variable({
    kind: text(),
    default: "127.0.0.1",
    description: "bind address of that metrics endpoint (compose: `0.0.0.0` inside the container)",
    readers: ["cli"],
  }),
  CONDENSE_TRACE_FILE: optional({
    kind: text(),
    description: "test harness: append one JSON line per flush run (start, end) to this file",
    readers: ["worker"],
  }),
  CONDENSE_CRASH_AT: optional({
    kind: text(),
    description: "test harness: crash the worker at a named point (packages/worker/src/crash-hooks.ts)",
    readers: ["worker"],
  }),
  CONDENSE_SERVICE_IDLE_MS: variable({
    kind: integer(0),
    default: 600_000,
    description:
      "the local service stops after this long with no client connected and no flush queued or running; 0 never",
    readers: ["service", "cli"],
  }),
  CONDENSE_SERVICE_NICE: variable({
    kind: integer(0, 19),
    default: 10,
    description:
      "the local service's CPU priority below the agent's: a nice value (0-19) for its process and, on Linux, its scheduling autogroup, so pi goes first when both want the CPU; 0 leaves it at the agent's",
    readers: ["service"],
  }),
  CONDENSE_SERVICE_PGLITE_TIER: variable<"baseline" | "optimizing">({
    kind: oneOf(["baseline", "optimizing"] as const),
    default: "baseline",
    description:
      "which of V8's WebAssembly compilers runs the local service's PGlite: `baseline` skips the optimizing recompile of Postgres (1-2 CPU-seconds on up to four threads in the service's first seconds, beside the agent's first steps) at about a fifth slower queries; `optimizing` is V8's default, for a service with steady heavy traffic",
    readers: ["service"],
  }),
  CONDENSE_SERVICE_ENTRY: optional({
    kind: text(),
    defaultText: "`@condense/service/daemon`",
    description: "the executable the pi extension starts with `node` when no local service answers",
    readers: ["client"],
  }),
  CONDENSE_URL: optional({
    kind: text(),
    description: "a fleet API; set, the extension and `condense status` use it instead of the local service",
    readers: ["client", "cli"],
    standard: true,
  }),
  CONDENSE_API_KEY: variable({
    kind: text(),
    default: "",
    defaultText: "empty",
    description: "the tenant API key for CONDENSE_URL",
    readers: ["client", "cli"],
  }),
  CONDENSE_SYNC_TIMEOUT_MS: variable({
    kind: integer(1),
    default: 8_000,
    description: "how long the extension waits for the service's state before rendering without it",
    readers: ["client"],
  }),
  CONDENSE_SHUTDOWN_DRAIN_MS: variable({
    kind: integer(1),
    default: 3_000,
    description:
      "when pi exits, how long the extension waits for the service to acknowledge the next unsent capture or flush request before it leaves the rest in the spool",
    readers: ["client"],
  }),
  CONDENSE_SHUTDOWN_DRAIN_MAX_MS: variable({
    kind: integer(1),
    default: 20_000,
    description:
      "when pi exits, the longest the extension drains unsent captures and flush requests while the service keeps acknowledging them (a backlog after a service restart)",
    readers: ["client"],
  }),
  CONDENSE_DEBUG: variable({
    kind: boolean,
    default: false,
    description: "the extension writes hand-off and sync errors to stderr",
    readers: ["client"],
  }),
  CONDENSE_QUIET: variable({
    kind: boolean,
    default: false,
    description: "the extension writes no notices to stderr when pi has no UI",
    readers: ["client"],
  }),
  CONDENSE_EXTENSION_SOURCE: variable({
    kind: boolean,
    default: false,
    description:
      "pi loads the extension from its TypeScript source even when the prebuilt bundle (built at `pnpm install`) is fresh",
    readers: ["client"],
  }),
  CONDENSE_STATE_CACHE: variable({
    kind: boolean,
    default: true,
    description:
      "keep each session's last applied state in `<data dir>/state`, so a resumed pi session's first request is already condensed (0 turns it off)",
    readers: ["client"],
  }),
};

export type VariableName = keyof typeof VARIABLES;
