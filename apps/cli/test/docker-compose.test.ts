/**
 * Structural checks of docker-compose.yml, the Dockerfile and the Prometheus/Grafana provisioning.
 * Docker is not available where this suite was written, so the stack itself was never started
 * here; these checks make sure that what it would start exists: every command names a real file and
 * CLI command, every depends_on a real service, every mounted path a real file, and the image
 * installs every workspace package (the Dockerfile itself: test/deploy/dockerfile.test.ts).
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { COMMANDS } from "../src/commands.ts";
import { ENTRIES } from "../../../infra/build/compile-dist.ts";

const ROOT = join(import.meta.dirname, "../../..");
const read = (p: string) => readFileSync(join(ROOT, p), "utf8");

interface Service {
  image?: string;
  build?: { context: string; dockerfile: string };
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  container_name?: string;
}
const compose = parseYaml(read("docker-compose.yml"), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const services = compose.services;
const CONDENSE = ["migrate", "api", "worker"];

describe("docker-compose.yml", () => {
  it("has the whole stack", () => {
    expect(Object.keys(services).sort()).toEqual([
      "api",
      "grafana",
      "migrate",
      "postgres",
      "prometheus",
      "redis",
      "worker",
    ]);
  });

  it("Condense services share one image built from infra/docker/Dockerfile and run its compiled entry points", () => {
    const bundles = new Map(Object.entries(ENTRIES).map(([name, entry]) => [`dist/bin/${name}.js`, entry]));
    for (const name of CONDENSE) {
      const s = services[name]!;
      expect(s.image).toBe("condense:local");
      expect(s.build?.dockerfile).toBe("infra/docker/Dockerfile");
      expect(existsSync(join(ROOT, s.build!.context, s.build!.dockerfile))).toBe(true);
      const [bin, bundle, command] = s.command ?? [];
      expect(bin, `${name} runs compiled code with node`).toBe("node");
      expect([...bundles.keys()], `${name}: ${bundle} is built by pnpm build:dist`).toContain(bundle);
      expect(existsSync(join(ROOT, bundles.get(bundle!)!)), `${name}: entry of ${bundle} exists`).toBe(true);
      if (bundle === "dist/bin/condense.js")
        expect(Object.keys(COMMANDS), `${name}: condense ${command}`).toContain(command);
    }
    expect(services.migrate!.command).toContain("migrate");
    expect(services.worker!.command).toContain("worker");
  });

  it("fleet services get Postgres and Redis URLs carrying the required passwords; the API does not migrate (the migrate job does)", () => {
    for (const name of CONDENSE) {
      const env = services[name]!.environment ?? {};
      expect(env.DATABASE_URL).toMatch(
        /^postgres:\/\/\$\{POSTGRES_USER:-\w+\}:\$\{POSTGRES_PASSWORD:\?[^}]+\}@postgres:5432\//,
      );
      expect(env.REDIS_URL).toMatch(/^redis:\/\/:\$\{REDIS_PASSWORD:\?[^}]+\}@redis:6379$/);
    }
    expect(services.api!.environment!.CONDENSE_MIGRATE).toBe("false");
    expect(services.api!.environment!.CONDENSE_HOST).toBe("0.0.0.0");
  });

  it("the worker scales: no fixed name or published port", () => {
    expect(services.worker!.container_name).toBeUndefined();
    expect(services.worker!.ports).toBeUndefined();
  });

  it("Redis keeps every key and an append-only file, and requires the password the URLs carry", () => {
    const cmd = services.redis!.command!.join(" ");
    expect(cmd).toMatch(/--maxmemory-policy noeviction/);
    expect(cmd).toMatch(/--appendonly yes/);
    expect(cmd).toMatch(/--requirepass "\$\$REDIS_PASSWORD"/);
    expect(services.redis!.environment!.REDIS_PASSWORD).toMatch(/^\$\{REDIS_PASSWORD:\?/);
    // Without the password Redis answers NOAUTH, not PONG: the healthcheck must authenticate.
    expect(services.redis!.healthcheck!.test.join(" ")).toMatch(
      /REDISCLI_AUTH="\$\$REDIS_PASSWORD" redis-cli ping \| grep -q PONG/,
    );
  });

  it("depends_on names real services; API and worker wait for a successful migration", () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, cond] of Object.entries(s.depends_on ?? {})) {
        expect(services[dep], `${name} depends on ${dep}`).toBeDefined();
        expect(["service_started", "service_healthy", "service_completed_successfully"]).toContain(cond.condition);
        if (cond.condition === "service_healthy")
          expect(services[dep]!.healthcheck, `${dep} needs a healthcheck`).toBeDefined();
      }
    }
    for (const name of ["api", "worker"])
      expect(services[name]!.depends_on!.migrate!.condition).toBe("service_completed_successfully");
    expect(services.migrate!.depends_on!.postgres!.condition).toBe("service_healthy");
  });

  it("long-running services have healthchecks that hit real endpoints", () => {
    for (const name of ["postgres", "redis", "api", "worker", "prometheus", "grafana"]) {
      expect(services[name]!.healthcheck?.test.length, name).toBeGreaterThan(0);
    }
    expect(services.api!.healthcheck!.test.join(" ")).toContain("127.0.0.1:8787/readyz");
    const port = services.worker!.command![services.worker!.command!.indexOf("--metrics-port") + 1];
    expect(port).toMatch(/^\d+$/);
    expect(services.worker!.healthcheck!.test.join(" ")).toContain(`127.0.0.1:${port}/metrics`);
  });

  it("bind-mounted host paths exist and named volumes are declared", () => {
    for (const [name, s] of Object.entries(services)) {
      for (const v of s.volumes ?? []) {
        const [src] = v.split(":");
        if (src!.startsWith("./")) expect(existsSync(join(ROOT, src!)), `${name}: ${src}`).toBe(true);
        else expect(compose.volumes[src!], `${name}: volume ${src}`).toBeDefined();
      }
    }
  });
});

// ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?message}, ${VAR?message} in the raw compose file ($${VAR} is an escape for the container's shell).
const composeText = read("docker-compose.yml");
const interpolations = [...composeText.matchAll(/(?<!\$)\$\{(\w+)(?:(:?[-?])([^}]*))?\}/g)].map((m) => ({
  name: m[1]!,
  op: m[2] ?? "",
  value: m[3] ?? "",
}));
const envExample = new Map(
  read(".env.example")
    .split("\n")
    .filter((l) => /^\w+=/.test(l))
    .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)] as const),
);
const CREDENTIAL = /PASSWORD/;
const tsSources = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory()
      ? tsSources(join(dir, e.name))
      : e.name.endsWith(".ts")
        ? [readFileSync(join(dir, e.name), "utf8")]
        : [],
  );
const sourceText = ["apps", "packages"]
  .flatMap((d) => readdirSync(join(ROOT, d)).map((p) => join(ROOT, d, p, "src")))
  .filter((p) => existsSync(p))
  .flatMap(tsSources)
  .join("\n");

describe("docker-compose.yml is safe by default", () => {
  it("Postgres and Redis are not published; every published port binds to CONDENSE_PUBLISH_HOST, default 127.0.0.1", () => {
    expect(services.postgres!.ports).toBeUndefined();
    expect(services.redis!.ports).toBeUndefined();
    const published = Object.entries(services).flatMap(([name, s]) => (s.ports ?? []).map((p) => [name, p] as const));
    expect(published.map(([n]) => n).sort()).toEqual(["api", "grafana", "prometheus"]);
    for (const [name, p] of published)
      expect(p, name).toMatch(/^\$\{CONDENSE_PUBLISH_HOST:-127\.0\.0\.1\}:\$\{\w+:-\d+\}:\d+$/);
  });

  it("no credential has a shipped default: every password is required (${VAR:?message})", () => {
    const credentials = interpolations.filter((i) => CREDENTIAL.test(i.name));
    expect(new Set(credentials.map((c) => c.name))).toEqual(
      new Set(["POSTGRES_PASSWORD", "REDIS_PASSWORD", "GRAFANA_DB_PASSWORD", "GRAFANA_ADMIN_PASSWORD"]),
    );
    for (const c of credentials) {
      expect(c.op, `\${${c.name}} must be :? (required, no default)`).toBe(":?");
      expect(c.value, `\${${c.name}:?...} names what to do`).toMatch(/set \w+/);
    }
    // The admin key may be empty (admin routes then answer 401) but never has a value shipped here.
    for (const i of interpolations.filter((x) => /KEY$/.test(x.name))) expect(i.value, i.name).toBe("");
  });

  it("every variable compose reads is in .env.example, and every .env.example entry is read by compose", () => {
    const read = new Set(interpolations.map((i) => i.name));
    expect(
      [...read].filter((n) => !envExample.has(n)),
      "missing from .env.example",
    ).toEqual([]);
    expect(
      [...envExample.keys()].filter((n) => !read.has(n)),
      "in .env.example but unused",
    ).toEqual([]);
    for (const i of interpolations) {
      // Required = blank in the example; otherwise the example shows the compose default.
      if (i.op === ":?") expect(envExample.get(i.name), `${i.name} is blank in .env.example`).toBe("");
      else expect(envExample.get(i.name), `${i.name}'s example equals its compose default`).toBe(i.value);
    }
  });

  it("every setting compose passes to a Condense service is read by the code, and the fleet's required ones are passed", () => {
    for (const name of CONDENSE) {
      for (const key of Object.keys(services[name]!.environment ?? {})) {
        // Provider keys are read by pi-ai from the environment, not by Condense's sources.
        if (/_API_KEY$/.test(key)) continue;
        expect(sourceText.includes(key), `${name}: ${key} is read somewhere in apps/*/src or packages/*/src`).toBe(
          true,
        );
      }
    }
    for (const key of ["DATABASE_URL", "REDIS_URL", "CONDENSE_REDIS_PREFIX"])
      for (const name of CONDENSE) expect(services[name]!.environment![key], `${name}: ${key}`).toBeDefined();
    expect(services.api!.environment!.CONDENSE_ADMIN_KEY).toBeDefined();
    // The worker metrics server binds 127.0.0.1 outside a container; compose opens it to the network Prometheus scrapes.
    expect(services.worker!.environment!.CONDENSE_WORKER_METRICS_HOST).toBe("0.0.0.0");
  });

  const compose = hasDockerCompose();
  if (!compose)
    console.warn(
      "[condense] docker-compose not installed: the `docker-compose config` checks are SKIPPED (apt-get install -y docker-compose)",
    );
  it.skipIf(!compose)(
    "docker-compose config refuses to run with a credential unset and names it; with all set, the URLs carry them",
    () => {
      const dir = mkdtempSync(join(tmpdir(), "condense-compose-"));
      const emptyEnv = join(dir, "empty.env");
      writeFileSync(emptyEnv, "");
      const config = (env: Record<string, string>) =>
        spawnSync(compose!, ["--env-file", emptyEnv, "-f", join(ROOT, "docker-compose.yml"), "config"], {
          env: { PATH: process.env.PATH ?? "", ...env },
          encoding: "utf8",
        });
      try {
        const all = {
          POSTGRES_PASSWORD: "pgsecret1",
          REDIS_PASSWORD: "redissecret1",
          GRAFANA_DB_PASSWORD: "grafanadb1",
          GRAFANA_ADMIN_PASSWORD: "grafanaadmin1",
        };
        for (const missing of Object.keys(all)) {
          const r = config({ ...all, [missing]: "" });
          expect(r.status, `${missing} unset`).not.toBe(0);
          expect(r.stderr, `${missing} unset`).toContain(`set ${missing}`);
        }
        const ok = config(all);
        expect(ok.status, ok.stderr).toBe(0);
        const resolved = parseYaml(ok.stdout) as {
          services: Record<string, { environment?: Record<string, string>; ports?: unknown[] }>;
        };
        for (const name of CONDENSE) {
          expect(resolved.services[name]!.environment!.REDIS_URL).toBe("redis://:redissecret1@redis:6379");
          expect(resolved.services[name]!.environment!.DATABASE_URL).toBe(
            "postgres://condense:pgsecret1@postgres:5432/condense",
          );
        }
        expect(resolved.services.postgres!.ports).toBeUndefined();
        expect(resolved.services.redis!.ports).toBeUndefined();
        for (const name of ["api", "prometheus", "grafana"])
          expect(JSON.stringify(resolved.services[name]!.ports), name).toMatch(/127\.0\.0\.1/);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );
});

function hasDockerCompose(): string | undefined {
  for (const bin of ["docker-compose"]) if (spawnSync(bin, ["version"], { stdio: "ignore" }).status === 0) return bin;
  return undefined;
}

describe("Prometheus and Grafana provisioning", () => {
  it("Prometheus scrapes the API port and the worker metrics port by service DNS", () => {
    const prom = parseYaml(read("infra/prometheus/prometheus.yml")) as {
      scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[];
    };
    const job = (n: string) => prom.scrape_configs.find((j) => j.job_name === n)!;
    expect(job("condense-api").dns_sd_configs[0]).toMatchObject({
      names: ["api"],
      port: Number(services.api!.environment!.CONDENSE_PORT),
    });
    const workerCmd = services.worker!.command!;
    expect(job("condense-worker").dns_sd_configs[0]).toMatchObject({
      names: ["worker"],
      port: Number(workerCmd[workerCmd.indexOf("--metrics-port") + 1]),
    });
  });

  it("every rule file prometheus.yml loads is mounted into the Prometheus container from infra/prometheus", () => {
    const prom = parseYaml(read("infra/prometheus/prometheus.yml")) as { rule_files?: string[] };
    expect(prom.rule_files?.length).toBeGreaterThan(0);
    const mounts = new Map((services.prometheus!.volumes ?? []).map((v) => [v.split(":")[1], v.split(":")[0]]));
    for (const f of prom.rule_files!) {
      expect(mounts.get(f), `${f} is mounted`).toMatch(/^\.\/infra\/prometheus\//);
      expect(existsSync(join(ROOT, mounts.get(f)!))).toBe(true);
    }
  });

  it("Grafana mounts the provisioning and dashboards, and gets what the datasource file interpolates", () => {
    const ds = read("infra/grafana/provisioning/datasources/datasources.yaml");
    const env = services.grafana!.environment!;
    for (const m of ds.matchAll(/\$\{(\w+)\}/g)) expect(env[m[1]!], `grafana env ${m[1]}`).toBeDefined();
    expect(services.postgres!.environment!.GRAFANA_DB_PASSWORD).toBe(env.GRAFANA_DB_PASSWORD);
    expect(env.GF_DASHBOARDS_DEFAULT_HOME_DASHBOARD_PATH).toBe("/var/lib/grafana/dashboards/fleet-overview.json");
    expect(existsSync(join(ROOT, "infra/grafana/dashboards/fleet-overview.json"))).toBe(true);
  });

  it("the postgres init scripts create grafana_reader and set its password from the environment", () => {
    const sql = read("infra/docker/postgres-init/01-grafana-reader.sql");
    expect(sql).toMatch(/CREATE ROLE grafana_reader/);
    expect(sql).toMatch(/ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT SELECT ON TABLES TO grafana_reader/);
    expect(read("infra/docker/postgres-init/02-grafana-reader-password.sh")).toContain("GRAFANA_DB_PASSWORD");
  });
});
