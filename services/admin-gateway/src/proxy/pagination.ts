/**
 * The gateway's part of the paging pattern of the shared API conventions: it returns the paging
 * metadata of a paged answer, serialized as JSON, in the `X-Pagination` header as well as in the body.
 *
 * It does not rewrite pageSize / pageNumber: the services apply the one paging rule
 * (`adapters/http/paging.ts`: default 10, 1 to 100, one-based, out of range is 400), so a request
 * through the gateway gets the same page, or the same 400, as the service itself gives. The pattern's
 * cap of 20 is not applied: it would make the specification's reporting-plan range (1 to 100) unreachable.
 */
export interface PagingMetadata {
  pageSize: number;
  pageNumber: number;
  totalCount: number;
  totalPages: number;
}

/** The paging metadata of a paged-model body (`{ records, metadata }`), or undefined for any other body. */
export function pagingMetadataOf(body: unknown): PagingMetadata | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const { records, metadata } = body as { records?: unknown; metadata?: Record<string, unknown> };
  if (!Array.isArray(records) || !metadata || typeof metadata !== 'object') return undefined;
  const fields = ['pageSize', 'pageNumber', 'totalCount', 'totalPages'] as const;
  if (!fields.every((f) => typeof metadata[f] === 'number')) return undefined;
  return {
    pageSize: metadata.pageSize as number,
    pageNumber: metadata.pageNumber as number,
    totalCount: metadata.totalCount as number,
    totalPages: metadata.totalPages as number,
  };
}
