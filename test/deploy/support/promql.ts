/**
 * PromQL as the dashboards and rules hold it: Grafana's variables expanded to what Grafana sends,
 * the metric names an expression reads, and the metric names the code registers.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(import.meta.dirname, "../../..");

/** Grafana's built-in interval variables, as Grafana sends them for a 15 s scrape interval. */
export const GRAFANA_VARIABLES: Record<string, string> = {
  __rate_interval: "1m",
  __interval: "15s",
  __range: "1h",
  __interval_ms: "15000",
  __range_s: "3600",
};

export function expandGrafanaPromql(expr: string, vars: Record<string, string> = GRAFANA_VARIABLES): string {
  return expr.replace(/\$\{(\w+)(?::\w+)?\}|\[\[(\w+)\]\]|\$(\w+)/g, (_, a?: string, b?: string, c?: string) => {
    const name = (a ?? b ?? c)!;
    const v = vars[name];
    if (v === undefined) throw new Error(`unknown Grafana variable $${name} in ${expr}`);
    return v;
  });
}

/** condense_* metric names an expression reads (histogram series folded into their family). */
export function metricNamesIn(expr: string): string[] {
  return [
    ...new Set([...expr.matchAll(/\b(condense_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ""))),
  ];
}

export interface DashboardQuery {
  dashboard: string;
  panel: string;
  expr: string;
}

/** Every Prometheus-datasource target of every provisioned dashboard. */
export function dashboardPromql(): DashboardQuery[] {
  const dir = join(ROOT, "infra/grafana/dashboards");
  const out: DashboardQuery[] = [];
  type Panel = {
    title?: string;
    datasource?: { type?: string };
    targets?: { expr?: string; datasource?: { type?: string } }[];
    panels?: Panel[];
  };
  const walk = (dashboard: string, panels: Panel[]) => {
    for (const p of panels) {
      if (p.panels) walk(dashboard, p.panels);
      for (const t of p.targets ?? []) {
        const type = t.datasource?.type ?? p.datasource?.type;
        if (type === "prometheus" && t.expr) out.push({ dashboard, panel: p.title ?? "(untitled)", expr: t.expr });
      }
    }
  };
  for (const f of readdirSync(dir).filter((n) => n.endsWith(".json")))
    walk(f, (JSON.parse(readFileSync(join(dir, f), "utf8")) as { panels: Panel[] }).panels ?? []);
  return out;
}

/** Metric names registered in apps/*\/src and packages/*\/src (prom-client `name: "condense_…"` or a scrape gauge's literal). */
export function registeredMetricNames(): Set<string> {
  const names = new Set<string>();
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.isDirectory()) walk(join(dir, e.name));
      else if (e.name.endsWith(".ts"))
        for (const m of readFileSync(join(dir, e.name), "utf8").matchAll(/["'`](condense_[a-z0-9_]+)["'`]/g))
          names.add(m[1]!);
    }
  };
  for (const top of ["apps", "packages"])
    for (const p of readdirSync(join(ROOT, top))) {
      try {
        walk(join(ROOT, top, p, "src"));
      } catch {
        /* no src directory */
      }
    }
  return names;
}
