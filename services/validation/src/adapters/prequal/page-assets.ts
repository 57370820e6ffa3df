/**
 * The pre-qualification page's only style and script, inline (the page must work offline and load
 * nothing: no CDN, no fonts). Both are constants, so the Content-Security-Policy allows exactly them
 * by their SHA-256 hash and nothing else; data never goes into the script (the rows are rendered,
 * escaped, by the server, and the script only reorders and hides them).
 */
import { createHash } from 'node:crypto';

export const PAGE_STYLE = `
:root { color-scheme: light; --ink: #1f2933; --muted: #52606d; --line: #d9e2ec; --bad: #b71c1c; --bad-bg: #fdecea; --good: #1b5e20; --good-bg: #e8f5e9; --accent: #1565c0; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif; color: var(--ink); background: #f5f7fa; }
header, main, footer { max-width: 1200px; margin: 0 auto; padding: 0 24px; }
header { padding-top: 20px; }
h1 { font-size: 24px; margin: 0 0 12px; }
h2 { font-size: 18px; margin: 4px 0 8px; }
section { background: #fff; border: 1px solid var(--line); border-radius: 6px; padding: 12px 16px 16px; margin: 16px 0; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 4px 16px; margin: 0; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; word-break: break-word; }
.verdict { font-size: 18px; font-weight: 600; padding: 12px 16px; border-radius: 6px; margin: 12px 0; }
.verdict.yes { background: var(--good-bg); color: var(--good); border: 1px solid #a5d6a7; }
.verdict.no { background: var(--bad-bg); color: var(--bad); border: 1px solid #ef9a9a; }
.verdict p { font-size: 14px; font-weight: 400; margin: 4px 0 0; color: var(--ink); }
.note { color: var(--muted); font-style: italic; }
table { width: 100%; border-collapse: collapse; margin-top: 8px; }
th, td { text-align: left; vertical-align: top; padding: 6px 8px; border-bottom: 1px solid var(--line); }
th { background: #eef2f7; white-space: nowrap; }
th button { font: inherit; font-weight: 600; background: none; border: 0; padding: 0; cursor: pointer; color: var(--ink); }
th button::after { content: " \\2195"; color: var(--muted); }
th[aria-sort="ascending"] button::after { content: " \\2191"; color: var(--accent); }
th[aria-sort="descending"] button::after { content: " \\2193"; color: var(--accent); }
td.num, th.num { text-align: right; }
td.code { white-space: nowrap; }
td.message { word-break: break-word; min-width: 320px; }
tr.blocking td:first-child { border-left: 4px solid var(--bad); }
tr.blocking .acceptable { color: var(--bad); font-weight: 600; }
.sev { display: inline-block; padding: 0 6px; border-radius: 3px; font-size: 12px; font-weight: 600; text-transform: uppercase; }
.sev-fatal, .sev-error { background: var(--bad-bg); color: var(--bad); }
.sev-warning { background: #fff8e1; color: #8d6e00; }
.sev-information { background: #e3f2fd; color: var(--accent); }
.tag { display: inline-block; margin: 0 4px 2px 0; padding: 0 6px; border-radius: 3px; background: #eef2f7; font-size: 12px; }
.tag.blocking { background: var(--bad-bg); color: var(--bad); }
details { margin-top: 4px; color: var(--muted); }
details code { font-size: 12px; word-break: break-all; }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0; }
.controls input, .controls select { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 4px; }
.controls input { min-width: 280px; }
svg.chart { width: 100%; height: auto; max-width: 900px; }
svg.chart text { font: 12px system-ui, sans-serif; fill: var(--ink); }
footer { color: var(--muted); padding-bottom: 24px; }
@media print { body { background: #fff; } .controls { display: none; } section { border: 0; } }
`;

export const PAGE_SCRIPT = `
(function () {
  'use strict';
  function sortKey(row, column, type) {
    var cell = row.cells[column];
    var value = cell.getAttribute('data-value');
    if (value === null) value = cell.textContent || '';
    return type === 'number' ? Number(value) : value.toLowerCase();
  }
  Array.prototype.forEach.call(document.querySelectorAll('table.sortable'), function (table) {
    var headers = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(headers, function (header, column) {
      var button = header.querySelector('button');
      if (!button) return;
      button.addEventListener('click', function () {
        var ascending = header.getAttribute('aria-sort') !== 'ascending';
        Array.prototype.forEach.call(headers, function (other) { other.removeAttribute('aria-sort'); });
        header.setAttribute('aria-sort', ascending ? 'ascending' : 'descending');
        var type = header.getAttribute('data-type');
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = sortKey(a, column, type), y = sortKey(b, column, type);
          var order = x < y ? -1 : x > y ? 1 : 0;
          return ascending ? order : -order;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
  var text = document.getElementById('issue-filter');
  var severity = document.getElementById('severity-filter');
  var status = document.getElementById('issue-status');
  if (!text || !severity || !status) return;
  function applyFilter() {
    var needle = text.value.trim().toLowerCase();
    var minimum = Number(severity.value);
    var rows = document.querySelectorAll('#issues tbody tr');
    var shown = 0;
    Array.prototype.forEach.call(rows, function (row) {
      var visible = Number(row.getAttribute('data-severity-rank')) >= minimum
        && (needle === '' || (row.textContent || '').toLowerCase().indexOf(needle) >= 0);
      row.hidden = !visible;
      if (visible) shown++;
    });
    status.textContent = 'Showing ' + shown + ' of ' + rows.length + ' messages';
  }
  text.addEventListener('input', applyFilter);
  severity.addEventListener('change', applyFilter);
  applyFilter();
})();
`;

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/** The page may run its own script and style and nothing else: no network, no other inline code. */
const POLICY = `default-src 'none'; script-src ${sha256(PAGE_SCRIPT)}; style-src ${sha256(PAGE_STYLE)}; img-src 'none'; `
  + `base-uri 'none'; form-action 'none'`;

/** For the `<meta http-equiv>` copy inside the page: it still protects a saved file opened offline. */
export const PAGE_CONTENT_SECURITY_POLICY = POLICY;
/** For the HTTP header (frame-ancestors is only honoured there). */
export const PAGE_CONTENT_SECURITY_POLICY_HEADER = `${POLICY}; frame-ancestors 'none'`;
