/**
 * Structural checks of docker-compose.yml, the Dockerfile and the Prometheus/Grafana provisioning.
 * Docker is not available where this suite was written, so the stack itself was never started
 * here; these checks make sure that what it would start exists: every command names a real file and
 * CLI command, every depends_on a real service, every mounted path a real file, and the image
 * installs every workspace package.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { COMMANDS } from "../src/commands.ts";

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
const compose = parseYaml(read("docker-compose.yml"), { merge: true }) as { services: Record<string, Service>; volumes: Record<string, unknown> };
const services = compose.services;
const CONDENSE = ["migrate", "api", "worker"];

describe("docker-compose.yml", () => {
  it("has the whole stack", () => {
    expect(Object.keys(services).sort()).toEqual(["api", "grafana", "migrate", "postgres", "prometheus", "redis", "worker"]);
  });

  it("Condense services share one image built from infra/docker/Dockerfile and run existing entry points", () => {
    const rootPkg = JSON.parse(read("package.json")) as { devDependencies: Record<string, string> };
    expect(rootPkg.devDependencies.tsx, "tsx must be a root dependency: the image runs node_modules/.bin/tsx").toBeDefined();
    for (const name of CONDENSE) {
      const s = services[name]!;
      expect(s.image).toBe("condense:local");
      expect(s.build?.dockerfile).toBe("infra/docker/Dockerfile");
      expect(existsSync(join(ROOT, s.build!.context, s.build!.dockerfile))).toBe(true);
      const [bin, entry, command] = s.command ?? [];
      expect(bin).toBe("node_modules/.bin/tsx");
      expect(existsSync(join(ROOT, entry!)), `${name}: ${entry} exists`).toBe(true);
      if (entry === "apps/cli/src/main.ts") expect(Object.keys(COMMANDS), `${name}: condense ${command}`).toContain(command);
    }
    expect(services.migrate!.command).toContain("migrate");
    expect(services.worker!.command).toContain("worker");
  });

  it("fleet services get Postgres and Redis URLs; the API does not migrate (the migrate job does)", () => {
    for (const name of CONDENSE) {
      const env = services[name]!.environment ?? {};
      expect(env.DATABASE_URL).toMatch(/^postgres:\/\/.+@postgres:5432\//);
      expect(env.REDIS_URL).toBe("redis://redis:6379");
    }
    expect(services.api!.environment!.CONDENSE_MIGRATE).toBe("false");
    expect(services.api!.environment!.HOST).toBe("0.0.0.0");
  });

  it("the worker scales: no fixed name or published port", () => {
    expect(services.worker!.container_name).toBeUndefined();
    expect(services.worker!.ports).toBeUndefined();
  });

  it("Redis keeps every key and an append-only file", () => {
    const cmd = services.redis!.command!.join(" ");
    expect(cmd).toMatch(/--maxmemory-policy noeviction/);
    expect(cmd).toMatch(/--appendonly yes/);
  });

  it("depends_on names real services; API and worker wait for a successful migration", () => {
    for (const [name, s] of Object.entries(services)) {
      for (const [dep, cond] of Object.entries(s.depends_on ?? {})) {
        expect(services[dep], `${name} depends on ${dep}`).toBeDefined();
        expect(["service_started", "service_healthy", "service_completed_successfully"]).toContain(cond.condition);
        if (cond.condition === "service_healthy") expect(services[dep]!.healthcheck, `${dep} needs a healthcheck`).toBeDefined();
      }
    }
    for (const name of ["api", "worker"]) expect(services[name]!.depends_on!.migrate!.condition).toBe("service_completed_successfully");
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

describe("infra/docker/Dockerfile", () => {
  const dockerfile = read("infra/docker/Dockerfile");
  it("node:20-slim, pnpm pinned to the workspace's packageManager, frozen lockfile, no corepack", () => {
    expect(dockerfile).toMatch(/^FROM node:20-slim$/m);
    const pm = (JSON.parse(read("package.json")) as { packageManager: string }).packageManager;
    expect(pm).toMatch(/^pnpm@/);
    expect(dockerfile).toContain(`PNPM_VERSION=${pm.slice("pnpm@".length)}`);
    expect(dockerfile).toMatch(/npx -y pnpm@\$\{PNPM_VERSION\} install --frozen-lockfile/);
    expect(dockerfile).not.toMatch(/^\s*RUN\b.*corepack/im);
  });

  it("copies the manifest of every workspace package before installing", () => {
    const workspaceDirs = ["apps", "packages"].flatMap((d) =>
      readdirSync(join(ROOT, d), { withFileTypes: true }).filter((e) => e.isDirectory() && existsSync(join(ROOT, d, e.name, "package.json"))).map((e) => `${d}/${e.name}`));
    workspaceDirs.push("test");
    for (const dir of workspaceDirs) expect(dockerfile, `${dir}/package.json`).toContain(`COPY ${dir}/package.json ${dir}/package.json`);
    expect(dockerfile.indexOf("COPY . .")).toBeGreaterThan(dockerfile.indexOf("--frozen-lockfile"));
  });
});

describe("Prometheus and Grafana provisioning", () => {
  it("Prometheus scrapes the API port and the worker metrics port by service DNS", () => {
    const prom = parseYaml(read("infra/prometheus/prometheus.yml")) as { scrape_configs: { job_name: string; dns_sd_configs: { names: string[]; port: number }[] }[] };
    const job = (n: string) => prom.scrape_configs.find((j) => j.job_name === n)!;
    expect(job("condense-api").dns_sd_configs[0]).toMatchObject({ names: ["api"], port: Number(services.api!.environment!.PORT) });
    const workerCmd = services.worker!.command!;
    expect(job("condense-worker").dns_sd_configs[0]).toMatchObject({ names: ["worker"], port: Number(workerCmd[workerCmd.indexOf("--metrics-port") + 1]) });
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
