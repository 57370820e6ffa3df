/**
 * The pre-qualification report as one self-contained HTML page: inline style and script only (see
 * page-assets.ts), every value escaped through the `html` template, a CSP `<meta>` so a saved copy
 * opened from disk is as locked down as the served one. Without script the page still shows
 * everything; the script only sorts (click a header) and filters (text box, severity select).
 */
import { ISSUE_SEVERITIES, severityRank } from '../../domain/results/issue-severity.js';
import { UNCATEGORIZED_ID } from '../../domain/categorization/category.js';
import { MAX_EXPRESSION_SAMPLES, PREQUALIFICATION_RULE, type PreQualCategoryRow, type PreQualIssueGroup, type PreQualReport } from '../../domain/prequal/prequal-report.js';
import { barChart } from './bar-chart.js';
import { html, trustedHtml, type SafeHtml } from './html-template.js';
import { PAGE_CONTENT_SECURITY_POLICY, PAGE_SCRIPT, PAGE_STYLE } from './page-assets.js';

export function renderPreQualHtml(report: PreQualReport): string {
  const title = `Pre-qualification report: ${report.facilityId} / ${report.reportId}`;
  const byId = new Map(report.categories.map((category) => [category.id, category]));
  const page = html`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${PAGE_CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style>${trustedHtml(PAGE_STYLE)}</style>
</head>
<body>
<header>
<h1>Pre-qualification report</h1>
${verdictBanner(report)}
</header>
<main>
<section id="report">
<h2>Report</h2>
${metadataList(report)}
</section>
<section id="categories-section">
<h2>Categories <span class="note">(${report.categories.length})</span></h2>
${report.categories.length === 0 ? html`<p class="note">No issues at or above ${report.minimumSeverity}.</p>` : html`
${barChart(report.categories.map((c) => ({ label: c.title, count: c.count, highlighted: c.blocking })), 'Issues per category')}
${categoryTable(report.categories)}`}
</section>
<section id="issues-section">
<h2>Issues by message <span class="note">(${report.shown.messageCount} messages, ${report.shown.issueCount} issues)</span></h2>
<div class="controls">
<label>Filter <input id="issue-filter" type="search" placeholder="message, code, category or location" autocomplete="off"></label>
<label>Minimum severity <select id="severity-filter">
<option value="0">all</option>
${ISSUE_SEVERITIES.slice(1).map((severity) => html`<option value="${severityRank(severity)}">${severity}</option>`)}
</select></label>
<span id="issue-status" role="status">Showing ${report.issues.length} of ${report.issues.length} messages</span>
</div>
${issueTable(report.issues, byId)}
</section>
</main>
<footer>
<p>${PREQUALIFICATION_RULE} The verdict considers every issue of the report; the tables show issues at or above the minimum severity.</p>
<p>Generated at <time datetime="${report.generatedAt}">${report.generatedAt}</time>.</p>
</footer>
<script>${trustedHtml(PAGE_SCRIPT)}</script>
</body>
</html>
`;
  return page.value;
}

function verdictBanner(report: PreQualReport): SafeHtml {
  const { verdict } = report;
  const reasons: string[] = [];
  if (verdict.unacceptableIssueCount > 0) reasons.push(`${plural(verdict.unacceptableIssueCount, 'issue')} in categories that are not acceptable`);
  if (verdict.uncategorizedErrorCount > 0) reasons.push(`${plural(verdict.uncategorizedErrorCount, 'error or fatal issue')} that no category describes`);
  const explanation = verdict.preQualified
    ? `None of the ${plural(verdict.issueCount, 'issue')} stops pre-qualification.`
    : `Not pre-qualified because of ${reasons.join(' and ')}.`;
  return html`<div id="verdict" class="verdict ${verdict.preQualified ? 'yes' : 'no'}" data-prequalified="${String(verdict.preQualified)}">
Pre-qualified: ${verdict.preQualified ? 'Yes' : 'No'}
<p>${explanation}</p>
</div>`;
}

function metadataList(report: PreQualReport): SafeHtml {
  const { metadata } = report;
  const period = metadata && (metadata.periodStart || metadata.periodEnd) ? `${metadata.periodStart ?? '?'} to ${metadata.periodEnd ?? '?'}` : undefined;
  const rows: [string, string | undefined][] = [
    ['Facility', report.facilityId],
    ['Report', report.reportId],
    ['Measures', metadata && metadata.measures.length > 0 ? metadata.measures.join(', ') : undefined],
    ['Reporting period', period],
    ['Submitted', metadata?.submittedAt],
    ['Issues', `${report.verdict.issueCount} in total; ${report.shown.issueCount} at or above ${report.minimumSeverity}`],
    ['Uncategorized issues', String(report.verdict.uncategorizedIssueCount)],
    ['Patients with the issues shown', String(report.shown.patientCount)],
    ['Generated at', report.generatedAt],
  ];
  return html`<dl class="meta">
${rows.filter(([, value]) => value !== undefined).map(([label, value]) => html`<dt>${label}</dt><dd>${value}</dd>
`)}</dl>
${report.metadataNote ? html`<p class="note">${report.metadataNote}</p>` : ''}`;
}

function sortableHeader(label: string, type: 'text' | 'number', numeric = false): SafeHtml {
  return html`<th data-type="${type}"${numeric ? html` class="num"` : ''}><button type="button">${label}</button></th>`;
}

function severityCell(severity: string): SafeHtml {
  const lower = severity.toLowerCase();
  const rank = ISSUE_SEVERITIES.findIndex((known) => known === lower);
  return html`<td data-value="${rank}"><span class="sev sev-${severity.toLowerCase()}">${severity}</span></td>`;
}

function categoryTable(categories: readonly PreQualCategoryRow[]): SafeHtml {
  return html`<table id="categories" class="sortable">
<thead><tr>${sortableHeader('Title', 'text')}${sortableHeader('Severity', 'number')}${sortableHeader('Acceptable', 'text')}${sortableHeader('Guidance', 'text')}${sortableHeader('Count', 'number', true)}</tr></thead>
<tbody>
${categories.map((category) => html`<tr data-category="${category.id}"${category.blocking ? html` class="blocking"` : ''}>
<td>${category.title}</td>
${severityCell(category.severity)}
<td class="acceptable">${acceptableText(category)}</td>
<td>${category.guidance}</td>
<td class="num count" data-value="${category.count}">${category.count}</td>
</tr>
`)}</tbody>
</table>`;
}

function acceptableText(category: PreQualCategoryRow): string {
  if (category.id === UNCATEGORIZED_ID) return 'No, for errors and fatal issues';
  return category.acceptable ? 'Yes' : 'No';
}

function issueTable(groups: readonly PreQualIssueGroup[], categories: ReadonlyMap<string, PreQualCategoryRow>): SafeHtml {
  return html`<table id="issues" class="sortable">
<thead><tr>${sortableHeader('Severity', 'number')}${sortableHeader('Code', 'text')}${sortableHeader('Message', 'text')}${sortableHeader('Categories', 'text')}${sortableHeader('Count', 'number', true)}${sortableHeader('Patients', 'number', true)}</tr></thead>
<tbody>
${groups.map((group) => html`<tr data-severity-rank="${severityRank(group.severity)}">
${severityCell(group.severity)}
<td class="code">${group.code}</td>
<td class="message" data-value="${group.message}">${group.message}${group.expressions.length > 0 ? html`
<details><summary>${locationSummary(group)}</summary>
${group.expressions.map((expression) => html`<div><code>${expression}</code></div>`)}</details>` : ''}</td>
<td>${group.categoryIds.map((id) => {
    const category = categories.get(id);
    const blocking = id === UNCATEGORIZED_ID ? severityRank(group.severity) >= severityRank('error') : category?.acceptable === false;
    return html`<span class="${blocking ? 'tag blocking' : 'tag'}">${category?.title ?? id}</span> `;
  })}</td>
<td class="num count" data-value="${group.count}">${group.count}</td>
<td class="num" data-value="${group.patientCount}">${group.patientCount}</td>
</tr>
`)}</tbody>
</table>`;
}

function locationSummary(group: PreQualIssueGroup): string {
  // Only MAX_EXPRESSION_SAMPLES distinct locations are kept; say so when there may be more.
  return group.expressions.length >= MAX_EXPRESSION_SAMPLES && group.count > group.expressions.length
    ? `First ${group.expressions.length} locations`
    : plural(group.expressions.length, 'location');
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
