/** The `count` column of an aggregate row (PostgreSQL answers bigint counts as text). */
export function countOf(row: { readonly count?: unknown } | undefined): number {
  return Number(row?.count ?? 0);
}
