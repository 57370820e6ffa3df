/** The `count` column of an aggregate row (PostgreSQL answers bigint counts as text). */
export function countOf(row: unknown): number {
  return Number((row as { count?: unknown } | undefined)?.count ?? 0);
}
