/**
 * Keeps deploy/observability/grafana-dashboard.json and prometheus-alerts.yaml honest: every metric
 * their queries use must be
 * exported by our code (found by grepping the metric declarations in adapters/ and services/), by
 * prom-client's default process metrics, or by a documented external exporter; and the labels its
 * matchers use on our metrics must be labels those metrics have.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Registry, collectDefaultMetrics } from 'prom-client';

/** Metrics of exporters that are not ours, with where they come from. */
export const EXTERNAL_METRICS: Readonly<Record<string, string>> = {
  jetstream_consumer_num_pending: 'prometheus-nats-exporter -jsz=all (labels stream_name, consumer_name)',
  jetstream_consumer_num_ack_pending: 'prometheus-nats-exporter -jsz=all',
  jetstream_consumer_num_redelivered: 'prometheus-nats-exporter -jsz=all',
  jetstream_stream_total_messages: 'prometheus-nats-exporter -jsz=all (label stream_name)',
  up: 'Prometheus itself (1 when the scrape of a target succeeded)',
};

/** Labels Prometheus adds when scraping (Kubernetes service discovery) and the registry's default label. */
export const SCRAPE_LABELS = new Set(['service', 'namespace', 'pod', 'container', 'instance', 'job', 'le']);

const PROMQL_WORDS = new Set([
  'by', 'without', 'on', 'ignoring', 'group_left', 'group_right', 'bool', 'and', 'or', 'unless', 'offset', 'inf', 'nan',
]);

/** Metric names an expression reads (functions, keywords, label matchers, durations removed). */
export function metricNamesInExpr(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"/g, '""') // string literals
    .replace(/\{[^}]*\}/g, ' ') // label matchers
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ') // grouping label lists
    .replace(/\[[^\]]*\]/g, ' ') // range and subquery durations
    .replace(/\boffset\s+-?[0-9][0-9a-z]*/gi, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/[A-Za-z_:][A-Za-z0-9_:]*/g)) {
    const word = match[0];
    const next = stripped.slice(match.index! + word.length).trimStart();
    if (next.startsWith('(') || PROMQL_WORDS.has(word.toLowerCase())) continue; // a function call or keyword
    names.add(word);
  }
  return [...names];
}

/** `name{a="x",b=~"y"}` → the label names each metric is matched on. */
export function matchedLabels(expr: string): Array<{ metric: string; labels: string[] }> {
  return [...expr.matchAll(/([A-Za-z_:][A-Za-z0-9_:]*)\{([^}]*)\}/g)].map((match) => ({
    metric: match[1]!,
    labels: [...match[2]!.matchAll(/([A-Za-z_][A-Za-z0-9_]*)\s*(?:=~|!~|!=|=)/g)].map((m) => m[1]!),
  }));
}

/** Every `expr` anywhere in the document: dashboard panels (rows' nested panels included), templating queries, alert rules. */
export function dashboardExpressions(dashboard: unknown): string[] {
  const expressions: string[] = [];
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        // Grafana's label_values(metric, label) template query reads the metric only.
        if ((key === 'expr' || key === 'definition') && typeof value === 'string') expressions.push(value.replace(/^\s*label_values\(\s*([^,()]+?)\s*,\s*[A-Za-z_][A-Za-z0-9_]*\s*\)\s*$/, '$1'));
        else visit(value);
      }
    }
  };
  visit(dashboard);
  return expressions;
}

/** A metric family as exported: its histogram/summary series suffixes belong to it. */
const familyOf = (name: string, known: ReadonlyMap<string, readonly string[]>) =>
  known.has(name) ? name : [...known.keys()].find((family) => ['_bucket', '_count', '_sum'].some((suffix) => name === family + suffix));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((entry) => {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) return entry === 'test' || entry === 'node_modules' ? [] : sourceFiles(full);
    return entry.endsWith('.ts') && !entry.endsWith('.spec.ts') ? [full] : [];
  });
}

/**
 * The metrics our code declares, with their label names (grep-based): `counter({ name: 'x'`
 * (any metric type, prom-client class or the service metrics factory) or `METRIC = 'x'`, and the
 * `labelNames: [...]` that follows within the same declaration.
 */
export function metricsDeclaredInCode(roots: readonly string[]): Map<string, string[]> {
  const metrics = new Map<string, string[]>();
  for (const file of roots.flatMap(sourceFiles)) {
    const text = readFileSync(file, 'utf8');
    if (!/prom-client|metrics\.(counter|histogram|gauge)\(/.test(text)) continue;
    for (const match of text.matchAll(/(?:\b(?:counter|histogram|gauge|Counter|Histogram|Gauge|Summary)\(\{\s*name:\s*|\bMETRIC\s*=\s*)'([a-z_:][a-z0-9_:]*)'/g)) {
      const after = text.slice(match.index!, match.index! + 600);
      const labels = /labelNames:\s*\[([^\]]*)\]/.exec(after)?.[1] ?? '';
      const names = [...labels.matchAll(/'([^']+)'/g)].map((m) => m[1]!);
      metrics.set(match[1]!, [...new Set([...(metrics.get(match[1]!) ?? []), ...names])]);
    }
  }
  return metrics;
}

/** prom-client's default process metrics, as collectDefaultMetrics registers them (no labels of their own checked). */
export async function defaultProcessMetrics(): Promise<Map<string, string[]>> {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = await registry.getMetricsAsJSON();
  return new Map(metrics.map((metric) => [metric.name, []]));
}

export interface KnownMetrics {
  /** Ours: name → label names (checked). */
  readonly code: ReadonlyMap<string, readonly string[]>;
  /** prom-client defaults and external exporters (labels not checked). */
  readonly other: ReadonlyMap<string, readonly string[]>;
}

/** Problems of a dashboard: unknown metrics, labels our metrics do not have, no queries at all. */
export function checkDashboard(dashboard: unknown, known: KnownMetrics): string[] {
  const problems: string[] = [];
  const expressions = dashboardExpressions(dashboard);
  if (expressions.length === 0) problems.push('the dashboard has no queries');
  for (const expr of expressions) {
    for (const name of metricNamesInExpr(expr)) {
      if (!familyOf(name, known.code) && !familyOf(name, known.other)) problems.push(`unknown metric ${name} in: ${expr}`);
    }
    for (const { metric, labels } of matchedLabels(expr)) {
      const family = familyOf(metric, known.code);
      if (!family) continue;
      const allowed = new Set([...known.code.get(family)!, ...SCRAPE_LABELS]);
      for (const labelName of labels) {
        if (!allowed.has(labelName)) problems.push(`metric ${metric} has no label ${labelName} (has ${[...known.code.get(family)!].join(', ') || 'none'}) in: ${expr}`);
      }
    }
  }
  return problems;
}
