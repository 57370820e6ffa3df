/**
 * The gateway's part of the paging pattern of the shared API conventions (specification, Paged
 * model; Limits: "Gateway paging pattern"):
 * - a page size above GATEWAY_MAX_PAGE_SIZE (20) is lowered to 20 and a page number below 1 becomes
 *   1, in the request the gateway passes on (default page size 10 and page number 1 are the
 *   services' own: the gateway leaves a missing parameter missing);
 * - the paging metadata of a paged answer is returned, serialized as JSON, in `X-Pagination` as well
 *   as in the body: it is what the service applied, so it carries the lowered values.
 *
 * A list that declares its own range is passed on unchanged: the specification's reporting-plan list
 * (pageSize 1 to 100, default 10) would otherwise lose pages 21 to 100 through the gateway. The
 * services themselves keep the one rule of adapters/http/paging.ts (1 to 100, out of range 400), so
 * values the pattern does not correct (a page size below 1, a non-number) get the service's 400.
 */
export const GATEWAY_MAX_PAGE_SIZE = 20;

/**
 * Lists with a paging range of their own in the specification (component, service path): the
 * gateway pattern does not apply to them. Paths are compared case-insensitively, without a trailing
 * slash, at the end of the upstream path (an upstream may sit under a path prefix).
 */
export const LISTS_WITH_OWN_PAGING_RANGE: readonly { component: string; path: string }[] = [
  { component: 'tenant', path: '/api/facility-reporting-plans' },
];

/**
 * Applies the gateway pattern to the query of a GET passed on to `component` at `upstreamPath`
 * (the upstream URL's path, ending in the service's `/api/...`), in place. Returns whether it changed anything.
 */
export function applyGatewayPaging(component: string, upstreamPath: string, query: URLSearchParams): boolean {
  const path = upstreamPath.replace(/\/+$/, '').toLowerCase(); // linear: one pass over the trailing slashes
  if (LISTS_WITH_OWN_PAGING_RANGE.some((list) => list.component === component && path.endsWith(list.path))) return false;
  let changed = false;
  const pageSize = singleInteger(query, 'pageSize');
  if (pageSize !== undefined && pageSize > GATEWAY_MAX_PAGE_SIZE) {
    query.set('pageSize', String(GATEWAY_MAX_PAGE_SIZE));
    changed = true;
  }
  const pageNumber = singleInteger(query, 'pageNumber');
  if (pageNumber !== undefined && pageNumber < 1) {
    query.set('pageNumber', '1');
    changed = true;
  }
  return changed;
}

/** The parameter's value when it is given once as an integer; anything else is left for the service to refuse. */
function singleInteger(query: URLSearchParams, name: string): number | undefined {
  const values = query.getAll(name);
  const [value] = values;
  if (values.length !== 1 || value === undefined || !/^-?\d{1,15}$/.test(value)) return undefined;
  return Number(value);
}

export interface PagingMetadata {
  pageSize: number;
  pageNumber: number;
  totalCount: number;
  totalPages: number;
}

/** The paging metadata of a paged-model body (`{ records, metadata }`), or undefined for any other body. */
export function pagingMetadataOf(body: unknown): PagingMetadata | undefined {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('records' in body) || !Array.isArray(body.records)) return undefined;
  const metadata = 'metadata' in body ? body.metadata : undefined;
  if (!metadata || typeof metadata !== 'object') return undefined;
  const pageSize = 'pageSize' in metadata && typeof metadata.pageSize === 'number' ? metadata.pageSize : undefined;
  const pageNumber = 'pageNumber' in metadata && typeof metadata.pageNumber === 'number' ? metadata.pageNumber : undefined;
  const totalCount = 'totalCount' in metadata && typeof metadata.totalCount === 'number' ? metadata.totalCount : undefined;
  const totalPages = 'totalPages' in metadata && typeof metadata.totalPages === 'number' ? metadata.totalPages : undefined;
  if (pageSize === undefined || pageNumber === undefined || totalCount === undefined || totalPages === undefined) return undefined;
  return { pageSize, pageNumber, totalCount, totalPages };
}

const RECORDS_FIRST = Buffer.from('{"records":[');
const METADATA_LAST = Buffer.from(',"metadata":{');

/**
 * pagingMetadataOf of a JSON answer's bytes. A service's paged answer is its res.json of a
 * PagedResult, `{"records":[...],"metadata":{...}}`: then only the metadata at the tail is parsed,
 * not the page of records (parsing a page of 20 facilities cost more than the rest of passing it on).
 * Why that reads the same metadata as parsing the whole body: a `"` after a `,` is not inside a string
 * (there it would end the string, and the bare `metadata` after it is no JSON), so `,"metadata":` is a
 * member name; when the text from its `{` to the last byte but one is one JSON value, the last byte
 * `}` closes the object that holds it, which is the whole body's. JSON.stringify writes no name
 * twice, so that member is the body's `metadata`. Any other layout (whitespace, another order) is
 * parsed whole; a body that is no JSON has no metadata.
 */
export function pagingMetadataOfJson(body: Buffer): PagingMetadata | undefined {
  if (body.length > RECORDS_FIRST.length + METADATA_LAST.length && body[body.length - 1] === 0x7d
    && body.compare(RECORDS_FIRST, 0, RECORDS_FIRST.length, 0, RECORDS_FIRST.length) === 0) {
    const at = body.lastIndexOf(METADATA_LAST);
    if (at > 0) {
      const metadata = parsedOrUndefined(body.toString('utf8', at + METADATA_LAST.length - 1, body.length - 1));
      const found = metadata === undefined ? undefined : pagingMetadataOf({ records: [], metadata });
      if (found) return found;
    }
  }
  return pagingMetadataOf(parsedOrUndefined(body.toString('utf8')));
}

function parsedOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
