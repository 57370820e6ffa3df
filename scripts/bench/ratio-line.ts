/**
 * The one line format in which a benchmark reports a ratio that `npm run bench:all` compares with
 * docs/performance.md: `ratio <name>: <value>`, alone on a line. Names are dotted, stable and begin
 * with the bench's name in bench-all.ts (`tenant.search.service/bare`); a ratio is always "higher is
 * better" (this / its reference in the same run).
 */

const LINE_START = 'ratio ';

export function ratioLine(name: string, value: number): string {
  return `${LINE_START}${name}: ${value.toFixed(2)}`;
}

export function printRatio(name: string, value: number): void {
  console.log(ratioLine(name, value));
}

/** Every ratio line of a benchmark's output, by name (a later line of the same name wins). */
export function parseRatioLines(output: string): Map<string, number> {
  const ratios = new Map<string, number>();
  for (const line of output.split('\n')) {
    if (!line.startsWith(LINE_START)) continue;
    const colon = line.lastIndexOf(': ');
    if (colon < 0) continue;
    const name = line.slice(LINE_START.length, colon).trim();
    const value = Number(line.slice(colon + 2).trim());
    if (name !== '' && !name.includes(' ') && Number.isFinite(value)) ratios.set(name, value);
  }
  return ratios;
}
