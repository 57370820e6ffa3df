/**
 * The lint ratchet's arithmetic (scripts/lint/lint.ts runs it): findings counted per folder and
 * rule, compared with the checked-in baseline. A folder is a ring of a service
 * (`services/validation/src/domain`), a shared adapter (`adapters/http`) or `contracts`, so moving
 * a file inside a ring does not trip the ratchet.
 */

/** folder → rule → count. */
export type Baseline = Record<string, Record<string, number>>;

export interface CountChange {
  folder: string;
  rule: string;
  baseline: number;
  now: number;
}

export function folderOf(file: string): string {
  const parts = file.split(/[\\/]/);
  if (parts[0] === 'services') return parts.slice(0, parts[2] === 'src' ? 4 : 3).join('/');
  if (parts[0] === 'adapters') return parts.slice(0, 2).join('/');
  return parts[0] ?? file;
}

export function countByFolder(files: readonly { file: string; rules: readonly string[] }[]): Baseline {
  const counts: Baseline = {};
  for (const { file, rules } of files) {
    if (rules.length === 0) continue;
    const byRule = (counts[folderOf(file)] ??= {});
    for (const rule of rules) byRule[rule] = (byRule[rule] ?? 0) + 1;
  }
  // stable order, so the baseline file diffs cleanly
  return Object.fromEntries(Object.keys(counts).sort().map((folder) => [folder, Object.fromEntries(Object.entries(counts[folder] ?? {}).sort(([a], [b]) => a.localeCompare(b)))]));
}

/** Counts above the baseline (a folder or rule the baseline lacks counts from 0), and counts below it. */
export function compareWithBaseline(now: Baseline, baseline: Baseline): { rose: CountChange[]; fell: CountChange[] } {
  const rose: CountChange[] = [];
  const fell: CountChange[] = [];
  const folders = new Set([...Object.keys(now), ...Object.keys(baseline)]);
  for (const folder of [...folders].sort()) {
    const rules = new Set([...Object.keys(now[folder] ?? {}), ...Object.keys(baseline[folder] ?? {})]);
    for (const rule of [...rules].sort()) {
      const a = baseline[folder]?.[rule] ?? 0;
      const b = now[folder]?.[rule] ?? 0;
      if (b > a) rose.push({ folder, rule, baseline: a, now: b });
      else if (b < a) fell.push({ folder, rule, baseline: a, now: b });
    }
  }
  return { rose, fell };
}
