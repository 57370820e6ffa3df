/**
 * The operations of the specification's operation tables, read from the specification itself
 * (../shared/spec, never copied into the repository; SHARED_DIR moves it): the validation table
 * ("Validation service operations": operation, route parameters, query parameters), the tenant
 * tables (Facilities, Facility reporting plans, Measure mappings: operation, parameters), the tenant
 * operations the text only counts ("one with no parameters, three with route id, …", the health
 * check) and the notes that name operations (the validation service's unnamed one).
 *
 * Parsed with plain string scanning (a table row is `| cell | cell |`; parenthesised remarks are
 * dropped by depth counting), so a change of the specification's tables shows up as a failing
 * contract suite, not as a silently different one.
 */
import { readFileSync } from 'node:fs';
import { sharedDir } from '#test-support/shared-dir.js';

export const SPEC_FILE = sharedDir('spec', '000_ad7d318a11deb91d.txt');

export interface SpecOperation {
  readonly service: 'validation' | 'tenant';
  /** The table the operation comes from (the tenant's three tables, or `counted` / `notes`). */
  readonly group: string;
  /** The operation as the specification names it; unnamed ones get `<group> #<n> (<signature>)`. */
  readonly name: string;
  readonly routeParameters: readonly string[];
  readonly queryParameters: readonly string[];
  /** The line of the specification the operation is on (1-based). */
  readonly line: number;
}

/** Drops parenthesised remarks (nested too) from a cell: `id (string, required)` → `id `. */
export function withoutRemarks(text: string): string {
  let depth = 0;
  let out = '';
  for (const ch of text) {
    if (ch === '(') depth++;
    else if (ch === ')') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out;
}

/** Parameter names of a comma-separated list, without words that are not names (`both required`, `required`). */
function names(list: string): string[] {
  return list.split(',').map((item) => item.trim()).filter((item) => /^[A-Za-z][A-Za-z0-9]*$/.test(item) && !['required', 'optional', 'none'].includes(item));
}

function cells(line: string): string[] {
  return line.split('|').slice(1, -1).map((cell) => cell.trim());
}

/** Table rows (not header nor separator) from the first line starting with `|` at or after `from`, with their line numbers. */
function tableAfter(lines: readonly string[], from: number): { cells: string[]; line: number }[] {
  let i = from;
  while (i < lines.length && !lines[i]!.startsWith('|')) i++;
  const rows: { cells: string[]; line: number }[] = [];
  for (let row = 0; i < lines.length && lines[i]!.startsWith('|'); i++, row++) {
    if (row < 2) continue; // header and |---|
    rows.push({ cells: cells(lines[i]!), line: i + 1 });
  }
  return rows;
}

function lineOf(lines: readonly string[], predicate: (line: string) => boolean, from = 0): number {
  for (let i = from; i < lines.length; i++) if (predicate(lines[i]!)) return i;
  throw new Error('The specification no longer has the expected section; the contract suite must be revised with it');
}

/** `route facilityId, required; query, optional: month, year` → route and query parameter names. */
export function tenantParameters(cell: string): { route: string[]; query: string[] } {
  const route: string[] = [];
  const query: string[] = [];
  for (const part of withoutRemarks(cell).split(';').map((p) => p.trim())) {
    if (part.startsWith('route ')) route.push(...names(part.slice('route '.length)));
    else if (part.startsWith('query')) query.push(...names(part.slice(part.indexOf(':') + 1)));
  }
  return { route, query };
}

const COUNT_WORDS: Readonly<Record<string, number>> = { one: 1, two: 2, three: 3, four: 4, five: 5 };

/** The soft delete's row says "see below": `Soft delete: DELETE /api/Facility/softDelete/{facilityId}. Path parameter facilityId required.` */
function softDeleteParameters(lines: readonly string[], from: number): { route: string[]; query: string[] } {
  const sentence = lines[lineOf(lines, (l) => l.startsWith('Soft delete:'), from)]!;
  const at = sentence.indexOf('Path parameter ');
  return { route: at === -1 ? [] : [sentence.slice(at + 'Path parameter '.length).split(' ')[0]!], query: [] };
}

export function specOperations(text: string = readFileSync(SPEC_FILE, 'utf8')): SpecOperation[] {
  const lines = text.split('\n');
  const operations: SpecOperation[] = [];

  const validation = lineOf(lines, (l) => l.startsWith('### Validation service operations'));
  for (const row of tableAfter(lines, validation)) {
    const [name, route, query] = row.cells as [string, string, string];
    operations.push({ service: 'validation', group: 'Validation service operations', name, routeParameters: names(withoutRemarks(route)), queryParameters: names(withoutRemarks(query)), line: row.line });
  }
  const unnamed = lineOf(lines, (l) => l.startsWith('- One further validation-service operation'), validation);
  operations.push({ service: 'validation', group: 'notes', name: 'The further validation-service operation without parameters or summary', routeParameters: [], queryParameters: [], line: unnamed + 1 });

  const tenant = lineOf(lines, (l) => l.startsWith('### Tenant service operations'));
  for (const group of ['Facilities', 'Facility reporting plans', 'Measure mappings']) {
    const at = lineOf(lines, (l) => l.trim() === group, tenant);
    for (const row of tableAfter(lines, at)) {
      const [name, parameters] = row.cells as [string, string];
      const { route, query } = parameters === 'see below' ? softDeleteParameters(lines, tenant) : tenantParameters(parameters);
      // "Two further operations on a facility": one row, two operations.
      const count = COUNT_WORDS[name.split(' ')[0]!.toLowerCase()] ?? 1;
      for (let k = 1; k <= count; k++) {
        operations.push({ service: 'tenant', group, name: count === 1 ? name : `${name} #${k}`, routeParameters: route, queryParameters: query, line: row.line });
      }
    }
  }

  // "a group of further operations without summary exists: one with no parameters, three with route id, …"
  const counted = lineOf(lines, (l) => l.startsWith('Other tenant operations:'), tenant);
  const sentence = lines[counted]!;
  const list = sentence.slice(sentence.indexOf('exists:') + 'exists:'.length, sentence.indexOf(';'));
  let n = 0;
  for (const item of list.split(',').map((p) => p.trim().replace(/^and /, ''))) {
    const [word, ...rest] = item.split(' ');
    const count = COUNT_WORDS[word!];
    if (count === undefined) throw new Error(`Cannot read "${item}" in the specification's counted tenant operations`);
    const signature = rest.join(' ');
    const route = signature.startsWith('with route ') ? [signature.slice('with route '.length)] : [];
    const query = signature.startsWith('with optional query ') ? [signature.slice('with optional query '.length)] : [];
    for (let k = 0; k < count; k++) {
      operations.push({ service: 'tenant', group: 'counted', name: `Further tenant operation #${++n} (${signature})`, routeParameters: route, queryParameters: query, line: counted + 1 });
    }
  }
  if (sentence.includes('The tenant service also has a health check operation')) {
    operations.push({ service: 'tenant', group: 'counted', name: 'Health check', routeParameters: [], queryParameters: [], line: counted + 1 });
  }
  return operations;
}
