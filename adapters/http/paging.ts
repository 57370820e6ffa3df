import type { Response } from 'express';
import { z } from 'zod';
import './openapi.js'; // extends zod with `.openapi` before the schemas below use it
import { HttpProblem } from './problem.js';
import { integerQueryValue, singleQueryValue, type Query } from './query.js';

/**
 * The one paging rule of every paged list of the services: page size 1 to MAX_PAGE_SIZE (default
 * DEFAULT_PAGE_SIZE), page number one-based (default 1), both applied whether or not the request
 * names them. Out-of-range values are refused with 400, never silently changed: the specification's
 * reporting-plan search allows 1 to 100 (default 10). The admin gateway adds the conventions'
 * gateway pattern in front (above 20 lowered to 20, below 1 becomes 1) for every list that does
 * not declare its own range (services/admin-gateway/src/proxy/pagination.ts).
 */
export const DEFAULT_PAGE_SIZE = 10;
export const MAX_PAGE_SIZE = 100;
/** The largest page number: any larger one would make the row offset inexact. */
export const MAX_PAGE_NUMBER = Math.floor(Number.MAX_SAFE_INTEGER / MAX_PAGE_SIZE);

/** OpenAPI query fields of a paged list, described from the constants above. */
export const PagingQueryFields = {
  pageSize: z.number().int().min(1).max(MAX_PAGE_SIZE).optional()
    .openapi({ description: `1 to ${MAX_PAGE_SIZE}; default ${DEFAULT_PAGE_SIZE}. Out of range: 400 (through the admin gateway, above 20 is lowered to 20 unless the list has its own range).` }),
  pageNumber: z.number().int().min(1).optional()
    .openapi({ description: 'One-based; default 1. Below 1: 400 (through the admin gateway it becomes 1 unless the list has its own range).' }),
};

/** The specification's paged model. */
export interface PagedResult<T> {
  readonly records: readonly T[];
  readonly metadata: PageMetadata;
}

export interface PageMetadata {
  readonly pageSize: number;
  readonly pageNumber: number;
  readonly totalCount: number;
  readonly totalPages: number;
}

export interface Paging {
  readonly pageSize: number;
  /** One-based. */
  readonly pageNumber: number;
  /** Rows to skip: (pageNumber - 1) * pageSize. */
  readonly offset: number;
}

export interface PagingOptions {
  readonly defaultPageSize?: number;
  readonly maxPageSize?: number;
}

/** Reads `pageSize` and `pageNumber` (one-based); out-of-range values give 400 naming the parameter. */
export function parsePaging(query: Query, options: PagingOptions = {}): Paging {
  const { defaultPageSize = DEFAULT_PAGE_SIZE, maxPageSize = MAX_PAGE_SIZE } = options;
  const pageSize = integerQueryValue(query, 'pageSize', { min: 1, max: maxPageSize }) ?? defaultPageSize;
  const pageNumber = integerQueryValue(query, 'pageNumber', { min: 1, max: MAX_PAGE_NUMBER }) ?? 1;
  if (pageSize < 1 || pageSize > maxPageSize) {
    throw HttpProblem.badRequest(`Query parameter pageSize must be between 1 and ${maxPageSize}; got ${pageSize}`,
      [{ field: 'pageSize', message: `must be between 1 and ${maxPageSize}` }]);
  }
  if (pageNumber < 1) {
    throw HttpProblem.badRequest(`Query parameter pageNumber must be 1 or more; got ${pageNumber}`,
      [{ field: 'pageNumber', message: 'must be 1 or more' }]);
  }
  if (pageNumber > MAX_PAGE_NUMBER) {
    throw HttpProblem.badRequest(`Query parameter pageNumber must be between 1 and ${MAX_PAGE_NUMBER}; got ${pageNumber}`,
      [{ field: 'pageNumber', message: `must be between 1 and ${MAX_PAGE_NUMBER}` }]);
  }
  return { pageSize, pageNumber, offset: (pageNumber - 1) * pageSize };
}

export function pagedResult<T>(records: readonly T[], totalCount: number, pageSize: number, pageNumber: number): PagedResult<T> {
  return {
    records,
    metadata: { pageSize, pageNumber, totalCount, totalPages: totalCount === 0 ? 0 : Math.ceil(totalCount / pageSize) },
  };
}

/**
 * One page of a list read whole: for the short lists of one owner (a facility's reporting plans, the
 * vendors, a vendor's versions), which a query per page would not make cheaper.
 */
export function pageOfList<T>(items: readonly T[], paging: Paging): PagedResult<T> {
  return pagedResult(items.slice(paging.offset, paging.offset + paging.pageSize), items.length, paging.pageSize, paging.pageNumber);
}

/**
 * Answers a search: 204 without a body when the page has no records, else 200 with the paged model.
 * `paginationHeader` also sends the metadata as JSON in `X-Pagination` (the gateway pattern).
 */
export function sendPaged<T>(res: Response, result: PagedResult<T>, options: { paginationHeader?: boolean } = {}): void {
  if (options.paginationHeader) res.setHeader('X-Pagination', JSON.stringify(result.metadata));
  if (result.records.length === 0) {
    res.status(204).end();
    return;
  }
  res.status(200).json(result);
}

export type SortOrder = 'asc' | 'desc';

export interface SortOptions<F extends string> {
  /** The canonical column names a client may sort by. */
  readonly allowed: readonly F[];
  readonly defaultField: F;
  readonly defaultOrder: SortOrder;
  readonly fieldParam?: string;
  readonly orderParam?: string;
}

export interface Sort<F extends string> {
  readonly field: F;
  readonly order: SortOrder;
}

/** A Map, not an object literal: `constructor`, `__proto__`, `toString` … must not be found in it. */
const ORDER_WORDS: ReadonlyMap<string, SortOrder> = new Map([['asc', 'asc'], ['ascending', 'asc'], ['desc', 'desc'], ['descending', 'desc']]);

/**
 * Reads `sortBy` / `sortOrder`. The field is matched case-insensitively against the whitelist and
 * the canonical name returned, so user text never reaches SQL; anything else is refused with 400.
 * Orders: Ascending|Descending|asc|desc, any case.
 */
export function parseSort<F extends string>(query: Query, options: SortOptions<F>): Sort<F> {
  const fieldParam = options.fieldParam ?? 'sortBy';
  const orderParam = options.orderParam ?? 'sortOrder';
  const rawField = singleQueryValue(query, fieldParam)?.trim();
  const rawOrder = singleQueryValue(query, orderParam)?.trim();
  let field = options.defaultField;
  if (rawField) {
    const found = options.allowed.find((candidate) => candidate.toLowerCase() === rawField.toLowerCase());
    if (!found) {
      throw HttpProblem.badRequest(`Query parameter ${fieldParam} must be one of ${options.allowed.join(', ')}`,
        [{ field: fieldParam, message: `must be one of ${options.allowed.join(', ')}` }]);
    }
    field = found;
  }
  let order = options.defaultOrder;
  if (rawOrder) {
    const found = ORDER_WORDS.get(rawOrder.toLowerCase());
    if (!found) {
      throw HttpProblem.badRequest(`Query parameter ${orderParam} must be Ascending or Descending`,
        [{ field: orderParam, message: 'must be Ascending or Descending' }]);
    }
    order = found;
  }
  return { field, order };
}
