/**
 * The gateway paging pattern of the shared API conventions: for paged lists the gateway
 *  - lowers a page size above 20 to 20 and raises a page number below 1 to 1 (defaults 10 and 1),
 *  - and returns the paging metadata, serialized as JSON, in the `X-Pagination` header as well as in the body.
 */
export const GATEWAY_MAX_PAGE_SIZE = 20;
export const GATEWAY_DEFAULT_PAGE_SIZE = 10;
export const GATEWAY_DEFAULT_PAGE_NUMBER = 1;

export interface PagingMetadata {
  pageSize: number;
  pageNumber: number;
  totalCount: number;
  totalPages: number;
}

/**
 * Normalizes pageSize/pageNumber of a query string that carries either of them. Other parameters are
 * kept in order and untouched. Values that are not integers are left for the service to refuse (400):
 * the gateway corrects ranges, it does not invent meaning.
 */
export function normalizePagingQuery(search: URLSearchParams): URLSearchParams {
  const names = [...search.keys()];
  const sizeKey = names.find((n) => n.toLowerCase() === 'pagesize');
  const numberKey = names.find((n) => n.toLowerCase() === 'pagenumber');
  if (!sizeKey && !numberKey) return search;
  const out = new URLSearchParams(search);
  if (sizeKey) {
    const size = toInt(out.get(sizeKey));
    if (size !== undefined && size > GATEWAY_MAX_PAGE_SIZE) out.set(sizeKey, String(GATEWAY_MAX_PAGE_SIZE));
  } else {
    out.set('pageSize', String(GATEWAY_DEFAULT_PAGE_SIZE));
  }
  if (numberKey) {
    const page = toInt(out.get(numberKey));
    if (page !== undefined && page < 1) out.set(numberKey, String(GATEWAY_DEFAULT_PAGE_NUMBER));
  } else {
    out.set('pageNumber', String(GATEWAY_DEFAULT_PAGE_NUMBER));
  }
  return out;
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

function toInt(value: string | null): number | undefined {
  if (value === null || !/^-?\d+$/.test(value.trim())) return undefined;
  return Number.parseInt(value, 10);
}
