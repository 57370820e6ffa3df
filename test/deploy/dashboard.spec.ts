import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import {
  EXTERNAL_METRICS, checkDashboard, dashboardExpressions, defaultProcessMetrics, matchedLabels, metricNamesInExpr,
  metricsDeclaredInCode, type KnownMetrics,
} from '#scripts/deploy/dashboard-metrics.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const dashboardText = readFileSync(path.join(root, 'deploy/observability/grafana-dashboard.json'), 'utf8');

describe('deploy: Grafana dashboard', () => {
  let known: KnownMetrics;
  before(async () => {
    const defaults = await defaultProcessMetrics();
    known = {
      code: metricsDeclaredInCode([path.join(root, 'adapters'), path.join(root, 'services')]),
      other: new Map([...defaults, ...Object.keys(EXTERNAL_METRICS).map((name) => [name, []] as [string, string[]])]),
    };
  });

  it('parses as a Grafana dashboard with a uid, a Prometheus datasource variable and panels with queries', () => {
    const dashboard = JSON.parse(dashboardText) as { uid: string; panels: Array<{ type: string; targets?: unknown[]; id: number }>; templating: { list: Array<{ name: string; type: string }> } };
    expect(dashboard.uid).to.equal('nhsn-platform');
    expect(dashboard.templating.list.find((v) => v.name === 'datasource')?.type).to.equal('datasource');
    const graphs = dashboard.panels.filter((p) => p.type !== 'row');
    expect(graphs.length).to.be.greaterThanOrEqual(10);
    expect(graphs.every((p) => (p.targets ?? []).length > 0)).to.equal(true);
    expect(new Set(dashboard.panels.map((p) => p.id)).size).to.equal(dashboard.panels.length);
  });

  it('finds the metrics the services declare in the code (grep), with their labels', () => {
    expect(known.code.get('http_request_duration_seconds')).to.have.members(['method', 'route', 'status_code']);
    expect(known.code.get('cache_requests_total')).to.have.members(['cache', 'result']);
    expect(known.code.has('outbox_publish_failures_total')).to.equal(true);
    expect(known.code.get('terminology_validate_code_answers_total')).to.deep.equal(['source']);
    expect(known.code.get('messaging_deliveries_total')).to.have.members(['consumer', 'outcome']);
    expect(known.code.get('messaging_dead_letters_total')).to.have.members(['consumer', 'kind']);
    expect(known.code.get('validation_resource_duration_seconds')).to.deep.equal(['resource_type']);
    expect(known.code.get('scheduler_ticks_total')).to.deep.equal(['outcome']);
    expect(known.other.has('process_cpu_seconds_total')).to.equal(true);
  });

  it('every metric the dashboard uses exists (our code, prom-client defaults or the NATS exporter), with existing labels', () => {
    expect(checkDashboard(JSON.parse(dashboardText), known)).to.deep.equal([]);
    const used = new Set(dashboardExpressions(JSON.parse(dashboardText)).flatMap(metricNamesInExpr));
    // The metrics the runbook's alerts are about are all on the dashboard.
    for (const metric of ['http_request_duration_seconds_count', 'http_request_duration_seconds_bucket', 'jetstream_consumer_num_pending',
      'jetstream_stream_total_messages', 'outbox_publish_failures_total', 'cache_requests_total',
      // The panels an operator needs: validation duration per resource type, queue lag, message age, dead letters, scheduler firings.
      'validation_resource_duration_seconds_bucket', 'messaging_consumer_pending_messages', 'messaging_message_age_seconds_bucket',
      'messaging_deliveries_total', 'messaging_dead_letters_total', 'scheduler_reports_scheduled_total', 'scheduler_ticks_total']) {
      expect(used, metric).to.include(metric);
    }
  });

  it('the alert rules parse, use only existing metrics and labels, and each has a severity', () => {
    const rules = parse(readFileSync(path.join(root, 'deploy/observability/prometheus-alerts.yaml'), 'utf8')) as { groups: Array<{ rules: Array<{ alert: string; expr: string; labels: { severity: string } }> }> };
    const all = rules.groups.flatMap((g) => g.rules);
    expect(all.length).to.be.greaterThanOrEqual(8);
    expect(all.every((r) => ['warning', 'critical'].includes(r.labels.severity))).to.equal(true);
    expect(checkDashboard(rules, known)).to.deep.equal([]);
    expect(all.map((r) => r.alert)).to.include.members(['NhsnHttp5xxRatioHigh', 'NhsnConsumerBacklog', 'NhsnDeadLetters', 'NhsnOutboxPublishFailing', 'NhsnCacheErrors',
      'NhsnMessageAgeHigh', 'NhsnSchedulerTicksFailing']);
    // Lag and dead letters are alerted on from the services' own metrics (no exporter needed).
    const exprOf = (name: string) => all.find((r) => r.alert === name)!.expr;
    expect(metricNamesInExpr(exprOf('NhsnDeadLetters'))).to.deep.equal(['messaging_dead_letters_total']);
    expect(metricNamesInExpr(exprOf('NhsnConsumerBacklog'))).to.deep.equal(['messaging_consumer_pending_messages']);
  });

  it('a dashboard with an unknown metric or a label the metric does not have fails the check', () => {
    const broken = {
      panels: [{ targets: [
        { expr: 'sum(rate(validation_duration_seconds_bucket[5m]))' },
        { expr: 'sum by (service) (rate(cache_requests_total{outcome="error"}[5m]))' },
      ] }],
    };
    const problems = checkDashboard(broken, known);
    expect(problems).to.have.length(2);
    expect(problems[0]).to.include('unknown metric validation_duration_seconds_bucket');
    expect(problems[1]).to.include('metric cache_requests_total has no label outcome');
    expect(checkDashboard({ panels: [] }, known)).to.deep.equal(['the dashboard has no queries']);
  });

  it('reads metric names and matchers out of PromQL (functions, keywords, strings, durations ignored)', () => {
    const expr = 'histogram_quantile(0.99, sum by (service, le) (rate(http_request_duration_seconds_bucket{route!~"/health.*",x="a{b}"}[5m]))) / on (service) group_left up offset 5m';
    expect(metricNamesInExpr(expr)).to.deep.equal(['http_request_duration_seconds_bucket', 'up']);
    expect(matchedLabels('a_total{x="1", y=~"2"} + b')).to.deep.equal([{ metric: 'a_total', labels: ['x', 'y'] }]);
  });
});
